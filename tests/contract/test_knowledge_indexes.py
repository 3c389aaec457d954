"""Migration 0018 and the stores' search indexes: on PostgreSQL one HNSW index per item
kind (partial), which a search of that kind walks; on SQLite a covering index of the
items' scope, which a keyword search joins its FTS5 matches through. Up and down."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from alembic import command
from sqlalchemy import text
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncEngine

from agent.knowledge.memories import new_item_id
from records.knowledge.items import EmbeddingSpace, Item, Scope, content_hash, normalised
from stores.knowledge import pgsearch
from stores.knowledge.pgvector import PgVectorKnowledgeStore
from stores.knowledge.sql import scope_parameters, shape_of
from stores.knowledge.sqlite import SqliteKnowledgeStore, _keyword_statement
from stores.sql.engine import alembic_config, create_engine
from tests.pgvector_server import pgvector_database

SPACE = EmbeddingSpace("random", 16)
MEMORY_INDEX = "ix_knowledge_items_embedding_memory"
CHUNK_INDEX = "ix_knowledge_items_embedding_chunk"


def items() -> list[Item]:
    now = datetime.now(UTC)
    made = [
        Item(new_item_id("mem_"), "acme", "memory", "alice", "default", f"alice fact {n}",
             content_hash(f"alice fact {n}"), now)
        for n in range(30)
    ]  # fmt: skip
    made += [
        Item(new_item_id("chk_"), "acme", "chunk", "", "kb", f"chunk {n} about billing",
             content_hash(f"chunk {n}"), now, "doc1", n)
        for n in range(30)
    ]  # fmt: skip
    return made


async def hnsw_indexes(engine: AsyncEngine) -> dict[str, str]:
    async with engine.connect() as connection:
        rows = await connection.execute(
            text(
                "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'knowledge_items' "
                "AND indexdef LIKE '%hnsw%'"
            )
        )
        return {r.indexname: r.indexdef for r in rows}


async def upgrade(url: str, revision: str) -> None:
    await asyncio.to_thread(command.upgrade, alembic_config(url), revision)


async def downgrade(url: str, revision: str) -> None:
    await asyncio.to_thread(command.downgrade, alembic_config(url), revision)


async def test_0018_splits_the_hnsw_index_by_kind_and_back(pgvector_socket: str) -> None:
    async with pgvector_database(pgvector_socket) as url:
        await upgrade(url, "0017")
        engine = create_engine(url)
        try:
            store = PgVectorKnowledgeStore(engine)
            stored = items()
            vectors = normalised(np.random.default_rng(1).standard_normal((60, 16), np.float32))
            await store.add(stored, vectors, SPACE)
            async with engine.begin() as connection:  # as the store made it before 0018
                for name in (MEMORY_INDEX, CHUNK_INDEX):
                    await connection.execute(text(f"DROP INDEX {name}"))
                await connection.execute(
                    text(
                        "CREATE INDEX ix_knowledge_items_embedding ON knowledge_items "
                        "USING hnsw (embedding vector_cosine_ops)"
                    )
                )
            await upgrade(url, "0018")
            found = await hnsw_indexes(engine)
            assert set(found) == {MEMORY_INDEX, CHUNK_INDEX}
            assert "WHERE ((kind)::text = 'memory'::text)" in found[MEMORY_INDEX]
            assert "WHERE ((kind)::text = 'chunk'::text)" in found[CHUNK_INDEX]
            hits = await store.search(
                Scope("acme", "memory", "alice"), vectors[3], top_k=1, space=SPACE
            )
            assert [h.item.item_id for h in hits] == [stored[3].item_id]
            await downgrade(url, "0017")
            assert set(await hnsw_indexes(engine)) == {"ix_knowledge_items_embedding"}
        finally:
            await engine.dispose()


async def test_0018_without_a_space_leaves_the_indexes_to_the_store(
    pgvector_socket: str,
) -> None:
    async with pgvector_database(pgvector_socket) as url:
        await upgrade(url, "0018")
        engine = create_engine(url)
        try:
            assert await hnsw_indexes(engine) == {}  # the column is untyped yet
            await PgVectorKnowledgeStore(engine).set_space(SPACE)
            assert set(await hnsw_indexes(engine)) == {MEMORY_INDEX, CHUNK_INDEX}
            await PgVectorKnowledgeStore(engine).set_vectors(
                ["mem_x"], np.ones((1, 16), np.float32)
            )
            assert await hnsw_indexes(engine) == {}  # a re-index drops them (set_space: back)
        finally:
            await engine.dispose()


async def test_each_kind_walks_its_own_hnsw_index(pgvector_socket: str) -> None:
    async with pgvector_database(pgvector_socket) as url:
        await upgrade(url, "head")
        engine = create_engine(url)
        try:
            await PgVectorKnowledgeStore(engine).set_space(SPACE)
            query = np.full(16, 0.25, np.float32)
            plans = {}
            for scope in (Scope("acme", "memory", "alice"), Scope("acme", "chunk")):
                statement = pgsearch.nearest_query(scope, query, 20, exact=False)
                sql = str(
                    statement.compile(
                        dialect=postgresql.dialect(),  # type: ignore[no-untyped-call]
                        compile_kwargs={"literal_binds": True},
                    )
                )
                async with engine.begin() as connection:
                    await pgsearch.walk_hnsw(connection)
                    plan = await connection.scalars(text(f"EXPLAIN {sql}"))
                    plans[scope.kind] = "\n".join(plan.all())
            assert f"Index Scan using {MEMORY_INDEX}" in plans["memory"]
            assert f"Index Scan using {CHUNK_INDEX}" in plans["chunk"]
        finally:
            await engine.dispose()


async def test_0018_gives_sqlite_keyword_search_a_covering_index(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'k.db'}"
    await upgrade(url, "0018")
    engine = create_engine(url)
    try:
        store = SqliteKnowledgeStore(engine)
        stored = items()
        vectors = normalised(np.random.default_rng(2).standard_normal((60, 16), np.float32))
        await store.add(stored, vectors, SPACE)
        scope = Scope("acme", "chunk", namespaces=("kb",))
        hits = await store.search(scope, vectors[40], top_k=3, query_text="billing 10", space=SPACE)
        assert hits[0].item.item_id == stored[40].item_id  # "chunk 10 about billing"
        assert hits[0].matched == ("vector", "keyword")
        statement = _keyword_statement(shape_of(scope), 2, 12).params(
            match_0='"billing" AND "10"', match_1='"billing" OR "10"', **scope_parameters(scope)
        )
        sql = statement.compile(engine.sync_engine, compile_kwargs={"literal_binds": True})
        async with engine.connect() as connection:
            plan = await connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}")
            details = " ".join(str(r[-1]) for r in plan)
        assert "COVERING INDEX ix_knowledge_items_keys" in details
    finally:
        await engine.dispose()
    await downgrade(url, "0017")
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            index = await connection.scalar(
                text("SELECT name FROM sqlite_master WHERE name = 'ix_knowledge_items_keys'")
            )
        assert index is None
    finally:
        await engine.dispose()


async def test_a_reindex_with_the_same_model_keeps_the_hnsw_indexes(
    pgvector_socket: str,
) -> None:
    """A re-index drops the indexes while it writes vectors (`set_vectors`); `set_space`
    builds them again even when the space is the one the store had (it returned early
    then, leaving the column untyped and no index)."""
    from agent.knowledge.memories import reindex
    from agent.llm.embeddings import HashEmbedder

    embedder = HashEmbedder(16, SPACE.model)
    async with pgvector_database(pgvector_socket) as url:
        await upgrade(url, "head")
        engine = create_engine(url)
        try:
            store = PgVectorKnowledgeStore(engine)
            made = items()[:3]
            await store.add(made, await embedder.embed([i.text for i in made]), embedder.space)
            assert set(await hnsw_indexes(engine)) == {MEMORY_INDEX, CHUNK_INDEX}
            assert await reindex(store, embedder) == 3
            assert set(await hnsw_indexes(engine)) == {MEMORY_INDEX, CHUNK_INDEX}
        finally:
            await engine.dispose()
