"""Keyword search for Chinese, Japanese and Korean: the keyword index is made of the
terms of `stores.knowledge.keywords` (CJK runs as characters and bigrams, other words
whole) instead of the backends' own word splitting. Existing items are re-tokenised.

SQLite: the FTS5 rows hold the terms. PostgreSQL: the tsvector of the terms moves to a
table of its own, `knowledge_keywords` (GIN), removed with its item (ON DELETE CASCADE);
the generated `words` column of knowledge_items goes. Changing that column in place
would rewrite knowledge_items, or update every row, and either re-inserts every vector
into the HNSW index: on a large table far slower than filling a side table.

Revision ID: 0017
Revises: 0015
Create Date: 2026-11-27 03:30:00.000000
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

BATCH = 1000


def _terms(text: str) -> str:
    from stores.knowledge.keywords import keyword_text

    return keyword_text(text)


def _rewrite(statement: str, value: Callable[[str], str]) -> None:
    """Run `statement` (params id, value) for every item, in batches by id."""
    bind = op.get_bind()
    after = ""
    while True:
        rows = bind.execute(
            sa.text(
                "SELECT item_id, tenant, text FROM knowledge_items WHERE item_id > :after "
                "ORDER BY item_id LIMIT :limit"
            ),
            {"after": after, "limit": BATCH},
        ).all()
        if not rows:
            return
        bind.execute(
            sa.text(statement),
            [{"id": r.item_id, "tenant": r.tenant, "value": value(r.text)} for r in rows],
        )
        after = rows[-1].item_id


def _has_items() -> bool:
    return sa.inspect(op.get_bind()).has_table("knowledge_items")


def upgrade() -> None:
    if not _has_items():
        return  # PostgreSQL without the `vector` extension: no knowledge tables (0013)
    if op.get_bind().dialect.name != "postgresql":
        op.execute("DELETE FROM knowledge_items_fts")
        _rewrite(
            "INSERT INTO knowledge_items_fts (text, item_id, tenant) VALUES (:value, :id, :tenant)",
            _terms,
        )
        return
    op.execute(
        "CREATE TABLE knowledge_keywords ("
        "item_id varchar(64) PRIMARY KEY "
        "REFERENCES knowledge_items (item_id) ON DELETE CASCADE, "
        "words tsvector NOT NULL)"
    )
    _rewrite(
        "INSERT INTO knowledge_keywords (item_id, words) "
        "VALUES (:id, to_tsvector('simple', :value))",
        _terms,
    )
    op.execute("CREATE INDEX ix_knowledge_keywords_words ON knowledge_keywords USING gin (words)")
    op.execute("DROP INDEX IF EXISTS ix_knowledge_items_words")
    op.execute("ALTER TABLE knowledge_items DROP COLUMN words")  # no rewrite: only marked gone
    # A user's or a knowledge base's share of the rows: the planner multiplies the shares
    # of tenant, kind, user and namespace unless told they depend on each other, and then
    # takes a scope of 10,000 rows for one of 1,000 (and a bad plan for its keywords).
    op.execute(
        "CREATE STATISTICS knowledge_items_scope (dependencies, ndistinct, mcv) "
        "ON tenant, kind, user_id, namespace FROM knowledge_items"
    )
    op.execute("ANALYZE knowledge_items")
    op.execute("ANALYZE knowledge_keywords")


def downgrade() -> None:
    if not _has_items():
        return
    if op.get_bind().dialect.name != "postgresql":
        op.execute("DELETE FROM knowledge_items_fts")
        _rewrite(
            "INSERT INTO knowledge_items_fts (text, item_id, tenant) VALUES (:value, :id, :tenant)",
            lambda text: text,
        )
        return
    op.execute("DROP STATISTICS IF EXISTS knowledge_items_scope")
    op.execute(
        "ALTER TABLE knowledge_items ADD COLUMN words tsvector "
        "GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED"
    )
    op.execute("CREATE INDEX ix_knowledge_items_words ON knowledge_items USING gin (words)")
    op.execute("DROP TABLE knowledge_keywords")
