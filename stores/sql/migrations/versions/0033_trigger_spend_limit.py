"""triggers.spend_limit: what each delivery's task may spend on model calls

Micro-units of the server's currency (a task's `spend_limit`); 0, which every trigger kept
before this revision reads as, sets no limit of its own.

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-08 02:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("triggers") as table:
        table.add_column(
            sa.Column("spend_limit", sa.BigInteger(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("triggers") as table:
        table.drop_column("spend_limit")
