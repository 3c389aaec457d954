"""task labels, for ListTasks filters

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 05:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "task_labels",
        sa.Column("task_id", sa.String(length=64), nullable=False),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("key", sa.String(length=63), nullable=False),
        sa.Column("value", sa.String(length=256), nullable=False),
        sa.PrimaryKeyConstraint("task_id", "key"),
    )
    op.create_index("ix_task_labels_tenant_key_value", "task_labels", ["tenant", "key", "value"])


def downgrade() -> None:
    op.drop_index("ix_task_labels_tenant_key_value", table_name="task_labels")
    op.drop_table("task_labels")
