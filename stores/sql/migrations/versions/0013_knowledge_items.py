"""knowledge_items (memories and document chunks with their vectors) and knowledge_space
(the embedding model they are of); on SQLite an FTS5 index of the items' text; on
PostgreSQL, only where the `vector` extension is available, the vector column and a
tsvector index (HNSW is built once the dimensions are known: `stores.knowledge.pgvector`)

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27 00:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def _vector_available() -> bool:
    bind = op.get_bind()
    found = bind.execute(
        sa.text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
    ).first()
    return found is not None


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        if not _vector_available():
            return  # memory stays off on this server (said once at start-up)
        op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.create_table(
        "knowledge_space",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("model", sa.String(256), nullable=False),
        sa.Column("dimensions", sa.Integer(), nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False, server_default="0"),
    )
    op.create_table(
        "knowledge_items",
        sa.Column("item_id", sa.String(64), primary_key=True),
        sa.Column("tenant", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("user_id", sa.String(256), nullable=False),
        sa.Column("namespace", sa.String(64), nullable=False),
        sa.Column("document_id", sa.String(64), nullable=False),
        sa.Column("chunk_index", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=True),
    )
    op.create_index(
        "ix_knowledge_items_scope", "knowledge_items", ["tenant", "kind", "user_id", "namespace"]
    )
    op.create_index("ix_knowledge_items_document", "knowledge_items", ["tenant", "document_id"])
    if dialect == "postgresql":
        op.execute("ALTER TABLE knowledge_items DROP COLUMN embedding")
        op.execute("ALTER TABLE knowledge_items ADD COLUMN embedding vector")
        op.execute(
            "ALTER TABLE knowledge_items ADD COLUMN words tsvector "
            "GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED"
        )
        op.execute("CREATE INDEX ix_knowledge_items_words ON knowledge_items USING gin (words)")
    else:
        op.execute(
            "CREATE VIRTUAL TABLE knowledge_items_fts USING fts5("
            "text, item_id UNINDEXED, tenant UNINDEXED, tokenize='unicode61')"
        )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if not sa.inspect(op.get_bind()).has_table("knowledge_items"):
        return  # PostgreSQL without the `vector` extension: nothing was made
    if dialect != "postgresql":
        op.execute("DROP TABLE IF EXISTS knowledge_items_fts")
    op.drop_index("ix_knowledge_items_document", table_name="knowledge_items")
    op.drop_index("ix_knowledge_items_scope", table_name="knowledge_items")
    op.drop_table("knowledge_items")
    op.drop_table("knowledge_space")
