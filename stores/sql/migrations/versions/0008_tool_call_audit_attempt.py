"""tool_call_audit.attempt and .cached: one record per attempt of a retried tool call,
and whether a result came from the cache of tool results

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 15:10:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tool_call_audit") as table:
        table.add_column(sa.Column("attempt", sa.Integer(), nullable=False, server_default="1"))
        table.add_column(
            sa.Column("cached", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("tool_call_audit") as table:
        table.drop_column("cached")
        table.drop_column("attempt")
