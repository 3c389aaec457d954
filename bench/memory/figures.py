"""Long-term memory and knowledge search at a production embedding size (1,536).

- recall p50 over 10,000 memories of one user: SQLite (exact cosine with numpy over the
  cached vectors) and PostgreSQL with pgvector (the memories' HNSW index, iterative
  index scan) — targets 5 ms and 10 ms; by vector alone and hybrid (with the query's
  words, as `recall` asks);
- knowledge search p50 (hybrid: vector and keyword, fused) over 100,000 chunks on
  pgvector — target 20 ms;
- ingestion: chunks per second of a document through the fake (hashed n-gram) embedder
  into SQLite, and a 20 MB document's peak Python memory (tracemalloc) and progress.

Searches are timed at the store (the query's embedding is made beforehand: an endpoint's
latency is not agentd's). Vectors are random unit vectors; on pgvector they are bulk
loaded with COPY and the HNSW indexes (one per item kind, as the store makes them) are
built after, in memory, as an operator would for a first import (SQLite's are added
through the store). pgvector runs on a server and a database of the bench's own,
built once and kept between runs (`bench.memory.pgvector_db`). Bounded in count.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from agent.knowledge.documents import KnowledgeBases, Progress
from agent.llm.embeddings import HashEmbedder
from bench.memory.corpus import (
    CHUNKS,
    DIMENSIONS,
    LOAD_BATCH,
    MEMORIES,
    SPACE,
    TOPICS,
    bench_items,
    unit_vectors,
)
from bench.memory.pgvector_db import BENCH_DATA, bench_server, cached_database
from records.knowledge.items import Scope, Vectors, normalised
from stores.knowledge.base import KnowledgeStore
from stores.knowledge.pgvector import PgVectorKnowledgeStore
from stores.knowledge.sqlite import SqliteKnowledgeStore, similarities
from stores.sql.engine import create_engine, migrate

QUERIES = 200
WARM_UP = 100
"""Searches on pgvector before measuring (other queries than the measured ones)."""
DOCUMENT_BYTES = 20 * 1024 * 1024


async def _load(store: KnowledgeStore, kind: str, count: int, vectors: Vectors) -> None:
    for start in range(0, count, LOAD_BATCH):
        batch = bench_items(kind, min(LOAD_BATCH, count - start), start)
        await store.add(batch, vectors[start : start + len(batch)], SPACE)


async def _p50(
    store: KnowledgeStore,
    scope: Scope,
    vectors: Vectors,
    hybrid: bool,
    queries: int = QUERIES,
    seed: int = 7,
) -> float:
    rng = np.random.default_rng(seed)
    took = []
    for n in range(queries):
        query = normalised(
            (
                vectors[rng.integers(len(vectors))]
                + 0.05 * rng.standard_normal(DIMENSIONS).astype(np.float32)
            ).reshape(1, -1)
        )[0]
        words = f"{TOPICS[n % len(TOPICS)]} item {n}" if hybrid else ""
        started = time.perf_counter()
        await store.search(scope, query, top_k=5, threshold=0.0, query_text=words, space=SPACE)
        took.append(time.perf_counter() - started)
    return statistics.median(took[5:]) * 1000  # the first ones warm caches up


async def _sqlite_recall(folder: Path) -> tuple[float, float, float]:
    """p50 of recall on SQLite: by vector alone, hybrid (as `recall` asks: with the
    query's words), and the bare matrix-vector product over the same vectors."""
    url = f"sqlite+aiosqlite:///{folder / 'bench.db'}"
    await migrate(url)
    engine = create_engine(url)
    try:
        store = SqliteKnowledgeStore(engine)
        vectors = unit_vectors(MEMORIES, 1)
        await _load(store, "memory", MEMORIES, vectors)
        scope = Scope("bench", "memory", "alice")
        by_vector = await _p50(store, scope, vectors, hybrid=False)
        hybrid = await _p50(store, scope, vectors, hybrid=True)
        return by_vector, hybrid, _floor(vectors)
    finally:
        await engine.dispose()


def _floor(vectors: Vectors) -> float:
    """p50 of the bare product over the same vectors (the store's `similarities`): what
    this machine allows an exact search (the store's overhead is the rest)."""
    took = []
    for n in range(QUERIES // 4):
        started = time.perf_counter()
        similarities(vectors, vectors[n])
        took.append(time.perf_counter() - started)
    return statistics.median(took) * 1000


async def _pgvector(socket: str) -> tuple[float, float, float]:
    """p50 on pgvector: recall by vector alone and hybrid, and hybrid knowledge search."""
    url, seconds, built = await cached_database(socket)
    print(
        f"  pgvector bench database: {'built now' if built else 'kept from an earlier run'}"
        f" (its load and HNSW build took {seconds:.0f} s; var/{BENCH_DATA.name})"
    )
    engine = create_engine(url)
    try:
        store = PgVectorKnowledgeStore(engine)
        memories = unit_vectors(MEMORIES, 1)
        scope = Scope("bench", "memory", "alice")
        # Searches of other queries first: the server starts with empty shared buffers
        await _p50(store, scope, memories, False, WARM_UP, seed=8)
        by_vector = await _p50(store, scope, memories, False)
        hybrid = await _p50(store, scope, memories, True)
        del memories
        chunks = unit_vectors(CHUNKS, 2)
        search = await _p50(store, Scope("bench", "chunk", namespaces=("kb",)), chunks, True)
        return by_vector, hybrid, search
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


def _line(what: str, ms: float, target: float, note: str = "") -> None:
    verdict = "met" if ms <= target else "MISSED"
    print(f"  {what:<48} {ms:7.2f} ms  (target <= {target:.0f} ms: {verdict}){note}")


async def main() -> None:
    print(f"memory and knowledge ({DIMENSIONS} dimensions; p50 of {QUERIES} searches)")
    print(f"  (load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as folder:
        by_vector, hybrid, floor = await _sqlite_recall(Path(folder))
        _line(
            f"recall, {MEMORIES:,} memories, SQLite",
            by_vector,
            5,
            f"; the bare numpy product here: {floor:.2f} ms",
        )
        _line("  the same, hybrid (with the query's words)", hybrid, 5)
        by_vector, hybrid, search = await _pgvector(bench_server())
        _line(f"recall, {MEMORIES:,} memories, pgvector", by_vector, 10)
        _line("  the same, hybrid (with the query's words)", hybrid, 10)
        _line(f"knowledge search, {CHUNKS:,} chunks, pgvector, hybrid", search, 20)
        rate, count, peak, reports = await _ingestion(Path(folder))
        print(
            f"  (load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
        )
        print(
            f"  ingestion of a {DOCUMENT_BYTES // 2**20} MB document (fake embedder, SQLite): "
            f"{count:,} chunks at {rate:,.0f} chunks/s; peak Python memory {peak:,.0f} MiB "
            f"beyond the document; {len(reports)} progress reports"
        )
