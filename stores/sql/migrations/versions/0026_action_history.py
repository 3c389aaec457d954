"""action_history: the inbox's history, a row per step of a wait for a person

Each step of a wait for a person (opened, reminded, escalated, answered, timed out) is a
row, kept after the wait and its task are gone; its id is made of the step, so a step
recorded twice is one row. Read by tenant in the list's order (time, task, entry:
`ix_action_history_tenant_time`), by task (`ix_action_history_task`), by task tree
(`ix_action_history_root`); swept by time (`ix_action_history_time`).

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-09 09:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "action_history",
        sa.Column("entry_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("task_id", sa.String(length=64), nullable=False),
        sa.Column("root_task_id", sa.String(length=64), nullable=False),
        sa.Column("request_id", sa.String(length=256), nullable=False),
        sa.Column("wait_kind", sa.String(length=16), nullable=False),
        sa.Column("step", sa.String(length=16), nullable=False),
        sa.Column("time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tool_name", sa.String(length=200), nullable=False),
        sa.Column("agent", sa.String(length=200), nullable=False),
        sa.Column("actor", sa.String(length=256), nullable=False),
        sa.Column("outcome", sa.String(length=32), nullable=False),
        sa.Column("roles", sa.Text(), nullable=False),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index(
        "ix_action_history_tenant_time",
        "action_history",
        ["tenant", "time", "task_id", "entry_id"],
    )
    op.create_index("ix_action_history_task", "action_history", ["task_id", "time", "entry_id"])
    op.create_index(
        "ix_action_history_root",
        "action_history",
        ["root_task_id", "time", "task_id", "entry_id"],
    )
    op.create_index("ix_action_history_time", "action_history", ["time"])


def downgrade() -> None:
    for index in (
        "ix_action_history_time",
        "ix_action_history_root",
        "ix_action_history_task",
        "ix_action_history_tenant_time",
    ):
        op.drop_index(index, table_name="action_history")
    op.drop_table("action_history")
