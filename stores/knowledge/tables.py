"""The tables of the knowledge stores (made by migration 0013). The vector column is a
BLOB of float32 on SQLite and pgvector's `vector` on PostgreSQL; the keyword index is an
FTS5 table on SQLite and a generated tsvector column on PostgreSQL."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

SPACE_ROW = 1
"""The one row of knowledge_space."""

space = Table(
    "knowledge_space",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("model", String(256), nullable=False),
    Column("dimensions", Integer, nullable=False),
    Column("generation", BigInteger, nullable=False, default=0),
)
"""The embedding space of every stored vector, and a counter every write bumps (the
SQLite store's caches of vectors are valid while it stands still)."""


def _item_columns() -> list[Column[object]]:
    return [
        Column("item_id", String(64), primary_key=True),
        Column("tenant", String(128), nullable=False),
        Column("kind", String(16), nullable=False),
        Column("user_id", String(256), nullable=False),
        Column("namespace", String(64), nullable=False),
        Column("document_id", String(64), nullable=False),
        Column("chunk_index", Integer, nullable=False),
        Column("text", Text, nullable=False),
        Column("content_hash", String(64), nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False),
    ]


items = Table("knowledge_items", metadata, *_item_columns())
"""The items without their vectors (the columns both backends share)."""

sqlite_metadata = MetaData()
sqlite_items = Table(
    "knowledge_items",
    sqlite_metadata,
    *_item_columns(),
    Column("embedding", LargeBinary, nullable=True),
)
