"""Backends for the contract suites: every interface runs against each of them.

Redis is the machine's real server on 127.0.0.1:6379 (never a mock); each
test gets a key prefix of its own and removes its keys afterwards.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import redis.asyncio as redis
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from stores.sql.database import Database
from stores.sql.engine import create_engine, migrate
from stores.tasks.base import TaskStore
from stores.tasks.memory import InMemoryTaskStore
from stores.tasks.redis import RedisTaskStore

REDIS_URL = "redis://127.0.0.1:6379/0"


async def drop_prefix(client: redis.Redis, prefix: str) -> None:
    keys = [key async for key in client.scan_iter(match=f"{prefix}*")]
    if keys:
        await client.delete(*keys)


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[TaskStore]:
    if request.param == "memory":
        yield InMemoryTaskStore()
        return
    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    try:
        yield RedisTaskStore(client, prefix=prefix, poll_seconds=0.1, retention_seconds=60)
    finally:
        await drop_prefix(client, prefix)
        await client.aclose()


POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"


SQL_BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@asynccontextmanager
async def empty_database(kind: str, tmp_path: Path) -> AsyncIterator[tuple[str, str | None]]:
    """(url, schema) of an empty database: a SQLite file, or a fresh schema in the
    machine's PostgreSQL (dropped afterwards)."""
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}", None
        return
    schema = f"agentd_test_{secrets.token_hex(6)}"
    admin = create_async_engine(POSTGRES_URL)
    async with admin.begin() as connection:
        await connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield POSTGRES_URL, schema
    finally:
        async with admin.begin() as connection:
            await connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()


@asynccontextmanager
async def migrated_engine(kind: str, tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    """A migrated database: a SQLite file, or a fresh schema in the machine's PostgreSQL."""
    async with empty_database(kind, tmp_path) as (url, schema):
        await migrate(url, schema)
        await migrate(url, schema)  # idempotent
        engine = create_engine(url, schema=schema)
        try:
            yield engine
        finally:
            await engine.dispose()


@asynccontextmanager
async def migrated_database(kind: str, tmp_path: Path) -> AsyncIterator[Database]:
    """`migrated_engine` with the writer every SQL store writes through."""
    async with migrated_engine(kind, tmp_path) as engine:
        database = Database(engine)
        try:
            yield database
        finally:
            await database.writer.close()
