"""a2a_push_configs: A2A push-notification configs with their delivery cursor and claim

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27 00:50:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "a2a_push_configs",
        sa.Column("tenant", sa.String(length=128), primary_key=True),
        sa.Column("task_id", sa.String(length=64), primary_key=True),
        sa.Column("config_id", sa.String(length=64), primary_key=True),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("token", sa.Text(), nullable=False),
        sa.Column("auth_scheme", sa.String(length=64), nullable=False),
        sa.Column("auth_credentials", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivered_through", sa.BigInteger(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("claimed_by", sa.String(length=128), nullable=False),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_a2a_push_configs_due", "a2a_push_configs", ["finished", "claimed_until"])


def downgrade() -> None:
    op.drop_index("ix_a2a_push_configs_due", table_name="a2a_push_configs")
    op.drop_table("a2a_push_configs")
