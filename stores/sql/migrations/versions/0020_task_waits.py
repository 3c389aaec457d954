"""task_waits: what parked tasks wait for (a person, children, a remote agent, a turn)

A task that waits gives up its running place; the wait is kept here so that whatever
ends it (an answer, a child's end, a deadline, a poll) can be written by any replica
before the task is woken.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07 06:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

INDEXES = {
    "ix_task_waits_deadline": ["state", "deadline_at"],
    "ix_task_waits_answered": ["state", "answered_at"],
    "ix_task_waits_polls": ["kind", "state", "check_at"],
    "ix_task_waits_inbox": ["tenant", "state", "created_at"],
    "ix_task_waits_root": ["root_task_id"],
}


def upgrade() -> None:
    op.create_table(
        "task_waits",
        sa.Column("task_id", sa.String(length=64), primary_key=True),
        sa.Column("slot", sa.String(length=256), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("root_task_id", sa.String(length=64), nullable=False),
        sa.Column("agent", sa.String(length=200), nullable=False),
        sa.Column("owner", sa.String(length=256), nullable=False),
        sa.Column("roles", sa.Text(), nullable=False),
        sa.Column("tool_name", sa.String(length=200), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("on_deadline", sa.String(length=16), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("answered_by", sa.String(length=256), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("changes", sa.Integer(), nullable=False),
        sa.Column("check_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("checks", sa.Integer(), nullable=False),
    )
    for name, columns in INDEXES.items():
        op.create_index(name, "task_waits", columns)


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name="task_waits")
    op.drop_table("task_waits")
