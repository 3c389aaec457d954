"""A pooled PostgreSQL connection is pinged at checkout only when it sat idle in the pool
longer than `PoolOptions.ping_idle_seconds` (stores/sql/engine.py): a connection the
server dropped meanwhile (a restart, an idle timeout) is still found and replaced, and one
returned moments ago costs no ping (three round trips on asyncpg)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text

from stores.sql.engine import PoolOptions, create_engine
from tests.pgvector_server import pgvector_database


async def _backend_pid(engine: Any) -> int:
    async with engine.connect() as connection:
        return int(await connection.scalar(text("SELECT pg_backend_pid()")))


def _count_pings(engine: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pings: list[int] = []
    dialect = engine.sync_engine.dialect
    real = dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return bool(real(dbapi_connection))

    monkeypatch.setattr(dialect, "do_ping", counted)
    return pings


async def test_a_connection_dropped_while_idle_is_replaced(
    pgvector_socket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with pgvector_database(pgvector_socket) as url:
        engine = create_engine(url, pool=PoolOptions(size=1, overflow=0, ping_idle_seconds=0))
        admin = create_engine(url)
        try:
            pings = _count_pings(engine, monkeypatch)
            first = await _backend_pid(engine)
            async with admin.connect() as connection:  # the server drops the idle one
                await connection.scalar(text("SELECT pg_terminate_backend(:p)"), {"p": first})
            second = await _backend_pid(engine)  # no error: pinged, found dead, replaced
            assert second != first
            assert pings == [1]
            pool: Any = engine.sync_engine.pool
            assert pool.checkedout() == 0
        finally:
            await engine.dispose()
            await admin.dispose()


async def test_a_connection_just_returned_is_not_pinged(
    pgvector_socket: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with pgvector_database(pgvector_socket) as url:
        engine = create_engine(url, pool=PoolOptions(size=1, overflow=0, ping_idle_seconds=60))
        try:
            pings = _count_pings(engine, monkeypatch)
            pids = {await _backend_pid(engine) for _ in range(5)}
            assert len(pids) == 1  # the same pooled connection each time
            assert pings == []
        finally:
            await engine.dispose()


async def test_without_the_ping_a_dropped_connection_fails_once(
    pgvector_socket: str,
) -> None:
    """The other side of the bargain, and proof the first test's ping is what saves it: a
    connection dropped within `ping_idle_seconds` fails its next use once, and the pool
    has a new one after."""
    async with pgvector_database(pgvector_socket) as url:
        engine = create_engine(url, pool=PoolOptions(size=1, overflow=0, ping_idle_seconds=60))
        admin = create_engine(url)
        try:
            first = await _backend_pid(engine)
            async with admin.connect() as connection:
                await connection.scalar(text("SELECT pg_terminate_backend(:p)"), {"p": first})
            with pytest.raises(Exception, match=r"(?i)terminat|closed|connection"):
                await _backend_pid(engine)
            assert await _backend_pid(engine) != first
        finally:
            await engine.dispose()
            await admin.dispose()
