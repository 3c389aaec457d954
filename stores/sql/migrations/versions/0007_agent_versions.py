"""agent_versions: agents managed by RPC, every version kept

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 15:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "agent_versions",
        sa.Column("tenant", sa.String(length=128), primary_key=True),
        sa.Column("agent_id", sa.String(length=64), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("definition", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=256), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("agent_versions")
