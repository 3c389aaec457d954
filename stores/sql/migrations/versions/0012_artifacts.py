"""artifacts: named, versioned content of a task tree, a row per version

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27 00:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "artifacts",
        sa.Column("space", sa.String(length=64), primary_key=True),
        sa.Column("name", sa.String(length=128), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("media_type", sa.String(length=160), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("writer_task_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_artifacts_writer", "artifacts", ["space", "writer_task_id"])


def downgrade() -> None:
    op.drop_index("ix_artifacts_writer", table_name="artifacts")
    op.drop_table("artifacts")
