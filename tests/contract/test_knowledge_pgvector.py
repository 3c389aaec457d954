"""The pgvector store's two search paths (stores/knowledge/pgsearch.py): a large scope
walks the HNSW index with iterative scans, and its results are those of the exact
search; a walk that ends early falls back to the exact search; EXPLAIN shows the index."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import text
from sqlalchemy.dialects import postgresql

from agent.knowledge.memories import new_item_id
from records.knowledge.items import EmbeddingSpace, Item, Scope, content_hash, normalised
from stores.knowledge import pgsearch
from stores.knowledge.pgvector import PgVectorKnowledgeStore
from tests.contract.knowledge_backends import knowledge_store

SPACE = EmbeddingSpace("random", 32)
ALICE = Scope("acme", "memory", "alice")


def memory(user: str, n: int) -> Item:
    body = f"{user} fact {n}"
    return Item(
        new_item_id("mem_"), "acme", "memory", user, "default", body, content_hash(body),
        datetime.now(UTC),
    )  # fmt: skip


@pytest.fixture
async def store(tmp_path: Path, pgvector_socket: str) -> AsyncIterator[PgVectorKnowledgeStore]:
    async with knowledge_store("pgvector", tmp_path, pgvector_socket) as made:
        assert isinstance(made, PgVectorKnowledgeStore)
        rng = np.random.default_rng(3)
        items = [memory("alice", n) for n in range(40)] + [memory("bob", n) for n in range(400)]
        vectors = normalised(rng.standard_normal((len(items), 32), dtype=np.float32))
        await made.add(items, vectors, SPACE)
        async with made._engine.begin() as connection:
            await connection.execute(text("ANALYZE knowledge_items"))
        yield made


async def ranked(store: PgVectorKnowledgeStore, query: np.ndarray, top_k: int) -> list[str]:
    hits = await store.search(ALICE, query, top_k=top_k, space=SPACE)
    return [h.item.text for h in hits]


async def test_a_large_scope_walks_the_index_and_finds_the_exact_nearest(
    store: PgVectorKnowledgeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths: list[str] = []
    build, fallback = pgsearch.search_statement, pgsearch.nearest_query

    def spied(scope: Scope, vector: np.ndarray, terms: list[str], wanted: int, walk: bool) -> Any:
        paths.append("hnsw" if walk else "exact")
        return build(scope, vector, terms, wanted, walk)

    def spied_fallback(scope: Scope, vector: np.ndarray, wanted: int, exact: bool) -> Any:
        paths.append("exact" if exact else "hnsw")
        return fallback(scope, vector, wanted, exact)

    monkeypatch.setattr(pgsearch, "search_statement", spied)
    monkeypatch.setattr(pgsearch, "nearest_query", spied_fallback)
    query = normalised(np.random.default_rng(4).standard_normal((1, 32), dtype=np.float32))[0]
    exact = await ranked(store, query, 5)  # 40 items: the exact path
    assert len(exact) == 5
    assert paths == ["exact"]
    monkeypatch.setattr(pgsearch, "EXACT_SCOPE", 10)  # now alice's 40 are "large"
    assert await ranked(store, query, 5) == exact
    assert paths[1:] == ["hnsw"]
    monkeypatch.setattr(pgsearch, "MAX_SCAN_TUPLES", 1)  # the walk ends early, with at
    monkeypatch.setattr(pgsearch, "EF_SEARCH", 1)  # most one candidate: fewer than asked
    assert await ranked(store, query, 5) == exact  # ... and the exact search answers
    assert paths[2:] == ["hnsw", "exact"]


async def test_explain_shows_the_hnsw_index_for_a_large_scope(
    store: PgVectorKnowledgeStore,
) -> None:
    query = np.ones(32, np.float32) / np.sqrt(32)
    plans = {}
    for exact in (False, True):
        statement = pgsearch.nearest_query(ALICE, query, 20, exact)
        sql = str(
            statement.compile(
                dialect=postgresql.dialect(),  # type: ignore[no-untyped-call]
                compile_kwargs={"literal_binds": True},
            )
        )
        async with store._engine.begin() as connection:
            if not exact:
                await pgsearch.walk_hnsw(connection)
            plans[exact] = "\n".join((await connection.scalars(text(f"EXPLAIN {sql}"))).all())
    assert "Index Scan using ix_knowledge_items_embedding" in plans[False]
    assert "ix_knowledge_items_embedding" not in plans[True]
