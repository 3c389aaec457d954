"""Every connection the PostgreSQL pool hands out is pinged first, in one round trip
(stores/sql/engine.py): a connection the server dropped while it sat in the pool (a
restart, a failover, an idle timeout) is found and replaced before a caller's statement
runs on it."""

from __future__ import annotations

from typing import Any

import asyncpg  # type: ignore[import-untyped]
import pytest
from sqlalchemy import text

from stores.sql.engine import PoolOptions, create_engine
from tests.pgvector_server import pgvector_database


async def _backend_pid(engine: Any) -> int:
    async with engine.connect() as connection:
        return int(await connection.scalar(text("SELECT pg_backend_pid()")))


def _count_pings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The simple-protocol queries asyncpg connections run (the ping is `SELECT 1`)."""
    queries: list[str] = []
    real = asyncpg.connection.Connection.execute

    async def counted(self: Any, query: str, *args: Any, **kwargs: Any) -> Any:
        queries.append(query)
        return await real(self, query, *args, **kwargs)

    monkeypatch.setattr(asyncpg.connection.Connection, "execute", counted)
    return queries


async def test_a_connection_dropped_in_the_pool_is_replaced_before_it_is_used(
    pgvector_socket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with pgvector_database(pgvector_socket) as url:
        engine = create_engine(url, pool=PoolOptions(size=1, overflow=0))
        admin = create_engine(url)
        try:
            first = await _backend_pid(engine)
            async with admin.connect() as connection:  # the server drops the pooled one
                await connection.scalar(text("SELECT pg_terminate_backend(:p)"), {"p": first})
            pings = _count_pings(monkeypatch)
            second = await _backend_pid(engine)  # no error: pinged, found dead, replaced
            assert second != first
            assert pings.count("SELECT 1") == 2  # the dead one's ping, then the new one's
            pool: Any = engine.sync_engine.pool
            assert pool.checkedout() == 0
        finally:
            await engine.dispose()
            await admin.dispose()


async def test_each_checkout_is_pinged_once_with_a_simple_query(
    pgvector_socket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with pgvector_database(pgvector_socket) as url:
        engine = create_engine(url, pool=PoolOptions(size=1, overflow=0))
        try:
            await _backend_pid(engine)
            pings = _count_pings(monkeypatch)
            pids = {await _backend_pid(engine) for _ in range(5)}
            assert len(pids) == 1  # the same pooled connection each time
            assert pings.count("SELECT 1") == 5
        finally:
            await engine.dispose()
