"""task_history.parent_task_id and .root_task_id: child tasks (delegations to sub-agents,
panel members) and the tree they belong to, for ListTasks(parent_task_id=...); the same
two on tool_call_audit, for a child task's calls. Rows already there are of top tasks:
no parent, and their root is themselves (left empty).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27 00:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("task_history") as table:
        table.add_column(
            sa.Column("parent_task_id", sa.String(length=64), nullable=False, server_default="")
        )
        table.add_column(
            sa.Column("root_task_id", sa.String(length=64), nullable=False, server_default="")
        )
    op.create_index("ix_task_history_parent", "task_history", ["parent_task_id", "created_at"])
    with op.batch_alter_table("tool_call_audit") as table:
        table.add_column(
            sa.Column("parent_task_id", sa.String(length=64), nullable=False, server_default="")
        )
        table.add_column(
            sa.Column("root_task_id", sa.String(length=64), nullable=False, server_default="")
        )


def downgrade() -> None:
    with op.batch_alter_table("tool_call_audit") as table:
        table.drop_column("root_task_id")
        table.drop_column("parent_task_id")
    op.drop_index("ix_task_history_parent", table_name="task_history")
    with op.batch_alter_table("task_history") as table:
        table.drop_column("root_task_id")
        table.drop_column("parent_task_id")
