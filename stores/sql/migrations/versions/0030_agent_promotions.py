"""agent_promotions: each agent's promoted version (PromoteAgentVersion)

One row per agent that has had a version promoted, replaced by the next promotion;
a row whose version is not above the agent's last deleted version is of an agent
since deleted (a create after a delete starts with none promoted).

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-07 22:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "agent_promotions",
        sa.Column("tenant", sa.String(length=128), primary_key=True),
        sa.Column("agent_id", sa.String(length=64), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("promoted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("promoted_by", sa.String(length=256), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("agent_promotions")
