"""The knowledge stores the contract suite and the memory tests run on: in process,
SQLite, and PostgreSQL with pgvector (the session's pgserver); plus the machine's
PostgreSQL 15, which has no pgvector, for the "memory is off there" checks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from stores.knowledge.base import KnowledgeStore
from stores.knowledge.memory import InMemoryKnowledgeStore
from stores.knowledge.pgvector import PgVectorKnowledgeStore
from stores.knowledge.sqlite import SqliteKnowledgeStore
from stores.sql.engine import create_engine, migrate
from tests.pgvector_server import pgvector_database

BACKENDS = ["memory", "sqlite", "pgvector"]


@asynccontextmanager
async def knowledge_store(
    kind: str, tmp_path: Path, pgvector_socket: str
) -> AsyncIterator[KnowledgeStore]:
    if kind == "memory":
        yield InMemoryKnowledgeStore()
        return
    if kind == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}"
        await migrate(url)
        engine = create_engine(url)
        try:
            yield SqliteKnowledgeStore(engine)
        finally:
            await engine.dispose()
        return
    async with pgvector_database(pgvector_socket) as url:
        await migrate(url)
        await migrate(url)  # idempotent
        engine = create_engine(url)
        try:
            yield PgVectorKnowledgeStore(engine)
        finally:
            await engine.dispose()
