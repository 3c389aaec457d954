"""What an artifact costs: one `write_artifact` store write (the next version of a name)
and one read of the latest version, on SQLite and PostgreSQL, against the in-process
store measured in the same run.

Each write is 4 KiB of text to one of 10 names (so versions pile up, as a task that
keeps revising its report does). PostgreSQL is the machine's server on 127.0.0.1:5432
(database `test`, a schema of the run's own, dropped afterwards). Bounded in count.
"""

from __future__ import annotations

import secrets
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from stores.artifacts.base import ArtifactStore
from stores.artifacts.memory import InMemoryArtifactStore
from stores.artifacts.sql import SqlArtifactStore
from stores.sql.database import Database
from stores.sql.engine import create_engine, migrate

WRITES = 300
CONTENT = ("# Report\n" + "findings " * 455)[:4096].encode()
POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"


async def _timed(store: ArtifactStore) -> tuple[list[float], list[float]]:
    writes, reads = [], []
    for i in range(WRITES):
        name = f"report-{i % 10}.md"
        started = time.perf_counter()
        await store.write("tenant", "task-root", name, "text/markdown", CONTENT, "task-1")
        writes.append(time.perf_counter() - started)
        started = time.perf_counter()
        found = await store.read("tenant", "task-root", name)
        reads.append(time.perf_counter() - started)
        assert found is not None
        assert found.content == CONTENT
    return writes, reads


@asynccontextmanager
async def _postgres() -> AsyncIterator[Database]:
    schema = f"agentd_bench_{secrets.token_hex(4)}"
    admin = create_async_engine(POSTGRES_URL)
    async with admin.begin() as connection:
        await connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        await migrate(POSTGRES_URL, schema)
        database = Database(create_engine(POSTGRES_URL, schema=schema))
        try:
            yield database
        finally:
            await database.close()
    finally:
        async with admin.begin() as connection:
            await connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()


async def main() -> None:
    memory = await _timed(InMemoryArtifactStore())
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"
        await migrate(url)
        database = Database.open(url)
        try:
            sqlite = await _timed(SqlArtifactStore(database))
        finally:
            await database.close()
    async with _postgres() as database:
        postgres = await _timed(SqlArtifactStore(database))
    print(
        f"Artifacts: write a new version, read the latest ({len(CONTENT):,} bytes; "
        f"{WRITES} of each, 10 names)"
    )
    base_write, base_read = statistics.median(memory[0]), statistics.median(memory[1])
    for name, (writes, reads) in (("SQLite", sqlite), ("PostgreSQL", postgres)):
        write, read = statistics.median(writes), statistics.median(reads)
        print(
            f"  {name:<11} write p50 {write * 1000:.3f} ms (in-process {base_write * 1000:.4f} ms)"
            f"   read p50 {read * 1000:.3f} ms (in-process {base_read * 1000:.4f} ms)"
        )
