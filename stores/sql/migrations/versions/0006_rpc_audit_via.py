"""rpc_audit.via: the gateway that called on an end user's behalf

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 09:30:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rpc_audit") as table:
        table.add_column(sa.Column("via", sa.String(length=128), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("rpc_audit") as table:
        table.drop_column("via")
