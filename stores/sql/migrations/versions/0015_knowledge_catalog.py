"""knowledge_bases and knowledge_documents: the catalog of a tenant's knowledge bases and
their documents (the chunks are knowledge_items, migration 0013)

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27 01:45:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "knowledge_bases",
        sa.Column("tenant", sa.String(128), primary_key=True),
        sa.Column("knowledge_base_id", sa.String(64), primary_key=True),
        sa.Column("display_name", sa.String(256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "knowledge_documents",
        sa.Column("tenant", sa.String(128), primary_key=True),
        sa.Column("document_id", sa.String(64), primary_key=True),
        sa.Column("knowledge_base_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("media_type", sa.String(64), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("chunks", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_knowledge_documents_base", "knowledge_documents", ["tenant", "knowledge_base_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_knowledge_documents_base", table_name="knowledge_documents")
    op.drop_table("knowledge_documents")
    op.drop_table("knowledge_bases")
