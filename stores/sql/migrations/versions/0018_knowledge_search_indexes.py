"""Knowledge search indexes: on PostgreSQL one HNSW index per item kind (partial:
memories and chunks apart), on SQLite a covering index of each item's scope.

PostgreSQL: one HNSW graph held every memory and every chunk, so a recall of a user's
memories walked the graph past the chunks of every knowledge base (and a knowledge
search past every memory) before finding enough of its own. Each kind now has its own
graph (`kind = 'memory'`, `kind = 'chunk'`), which a search of that kind walks alone.
The indexes exist once the store's embedding space is known (the column is typed
`vector(N)` then, `stores.knowledge.pgvector`): a database without them gets them from
the store. Building an HNSW index of many rows takes a while; give the migration's
session a large `maintenance_work_mem` (docs/memory-and-knowledge.md, *Performance*).

SQLite: a keyword search joins its FTS5 matches to their items for the scope (tenant,
kind, user, namespace, document); each item row holds its vector (6 KB at 1,536
dimensions), so each match read pages of vectors. The covering index answers the join
from small index entries.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27 07:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

KINDS = ("memory", "chunk")


def _has_items() -> bool:
    return sa.inspect(op.get_bind()).has_table("knowledge_items")


def _has_index(name: str) -> bool:
    found = op.get_bind().execute(sa.text("SELECT to_regclass(:name)"), {"name": name}).scalar()
    return found is not None


def upgrade() -> None:
    if not _has_items():
        return  # PostgreSQL without the `vector` extension: no knowledge tables (0013)
    if op.get_bind().dialect.name != "postgresql":
        op.execute(
            "CREATE INDEX IF NOT EXISTS ix_knowledge_items_keys ON knowledge_items "
            "(item_id, tenant, kind, user_id, namespace, document_id)"
        )
        return
    if not _has_index("ix_knowledge_items_embedding"):
        return  # no space yet: the store makes the indexes when it types the column
    for kind in KINDS:
        op.execute(
            f"CREATE INDEX IF NOT EXISTS ix_knowledge_items_embedding_{kind} "
            f"ON knowledge_items USING hnsw (embedding vector_cosine_ops) WHERE kind = '{kind}'"
        )
    op.execute("DROP INDEX ix_knowledge_items_embedding")


def downgrade() -> None:
    if not _has_items():
        return
    if op.get_bind().dialect.name != "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_knowledge_items_keys")
        return
    if not _has_index("ix_knowledge_items_embedding_memory"):
        return
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_knowledge_items_embedding ON knowledge_items "
        "USING hnsw (embedding vector_cosine_ops)"
    )
    for kind in KINDS:
        op.execute(f"DROP INDEX IF EXISTS ix_knowledge_items_embedding_{kind}")
