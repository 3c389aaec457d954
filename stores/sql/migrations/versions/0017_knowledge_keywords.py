"""Keyword search for Chinese, Japanese and Korean: the keyword index is made of the
terms of `stores.knowledge.keywords` (CJK runs as characters and bigrams, other words
whole) instead of the backends' own word splitting. PostgreSQL: a `keywords` column
(the terms, written by the store) and the generated tsvector made from it; SQLite: the
FTS5 rows hold the terms. Existing items are re-tokenised.

Revision ID: 0017
Revises: 0015
Create Date: 2026-11-27 03:30:00.000000
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0015"
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
    op.execute("ALTER TABLE knowledge_items ADD COLUMN keywords text NOT NULL DEFAULT ''")
    _rewrite("UPDATE knowledge_items SET keywords = :value WHERE item_id = :id", _terms)
    _words("keywords")


def _words(source: str) -> None:
    """(Re)make the generated tsvector column from `source`, and its GIN index."""
    op.execute("DROP INDEX IF EXISTS ix_knowledge_items_words")
    op.execute("ALTER TABLE knowledge_items DROP COLUMN words")
    op.execute(
        "ALTER TABLE knowledge_items ADD COLUMN words tsvector "
        f"GENERATED ALWAYS AS (to_tsvector('simple', {source})) STORED"
    )
    op.execute("CREATE INDEX ix_knowledge_items_words ON knowledge_items USING gin (words)")


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
    _words("text")
    op.execute("ALTER TABLE knowledge_items DROP COLUMN keywords")
