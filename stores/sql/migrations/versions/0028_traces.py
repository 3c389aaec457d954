"""trace_heads, trace_entries and trace_messages: tasks' durable traces

A trace's head says whose task it is and what is kept of it; the retention sweeper finds
traces not written since the retention by `written` (`ix_trace_heads_written`),
ForgetUser a user's by tenant and user (`ix_trace_heads_user`), GetTaskTrace a task's
children by parent
(`ix_trace_heads_parent`). Entries are read in entry-id order (their primary key); each
distinct message a task's model calls sent is kept once, found by the first entry that
named it (`ix_trace_messages_first`), and by its number in the task
(`ix_trace_messages_number`, unique), by which model calls name their messages in runs.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-07 22:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "trace_heads",
        sa.Column("task_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("user", sa.String(length=256), nullable=False),
        sa.Column("root_task_id", sa.String(length=64), nullable=False),
        sa.Column("parent_task_id", sa.String(length=64), nullable=False),
        sa.Column("agent", sa.String(length=256), nullable=False),
        sa.Column("task", sa.Text(), nullable=False),
        sa.Column("started", sa.DateTime(timezone=True), nullable=False),
        sa.Column("entries", sa.Integer(), nullable=False),
        sa.Column("bytes", sa.BigInteger(), nullable=False),
        sa.Column("cut", sa.Boolean(), nullable=False),
        sa.Column("written", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_trace_heads_written", "trace_heads", ["written"])
    op.create_index("ix_trace_heads_user", "trace_heads", ["tenant", "user"])
    op.create_index("ix_trace_heads_parent", "trace_heads", ["parent_task_id", "started"])
    op.create_table(
        "trace_entries",
        sa.Column("task_id", sa.String(length=64), primary_key=True),
        sa.Column("entry_id", sa.String(length=40), primary_key=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("step_id", sa.String(length=256), nullable=False),
        sa.Column("time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("cut", sa.Boolean(), nullable=False),
        sa.Column("bytes", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
    )
    op.create_table(
        "trace_messages",
        sa.Column("task_id", sa.String(length=64), primary_key=True),
        sa.Column("message_id", sa.String(length=32), primary_key=True),
        sa.Column("first_entry_id", sa.String(length=40), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("bytes", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
    )
    op.create_index("ix_trace_messages_first", "trace_messages", ["task_id", "first_entry_id"])
    op.create_index(
        "ix_trace_messages_number", "trace_messages", ["task_id", "number"], unique=True
    )


def downgrade() -> None:
    op.drop_index("ix_trace_messages_number", table_name="trace_messages")
    op.drop_index("ix_trace_messages_first", table_name="trace_messages")
    op.drop_table("trace_messages")
    op.drop_table("trace_entries")
    for index in ("ix_trace_heads_parent", "ix_trace_heads_user", "ix_trace_heads_written"):
        op.drop_index(index, table_name="trace_heads")
    op.drop_table("trace_heads")
