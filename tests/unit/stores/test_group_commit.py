"""The one SQL writer: a bad write fails alone, concurrent writes never meet a locked
SQLite database, and an unreachable database is reported as unavailable."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.engine import Engine

from core.errors import StoreUnavailableError
from records.audit import RpcRecord
from records.keys import new_key
from records.tasks import Task, TaskQuery
from records.tools.audit import ToolCallRecord
from records.tools.grants import Grant, new_grant_id
from records.tools.model import PermissionLevel
from stores.api_keys.sql import SqlKeyStore
from stores.audit.sql import SqlAuditLog, SqlRpcAuditLog
from stores.checkpoints.sql import SqlCheckpointStore
from stores.grants.sql import SqlGrantStore
from stores.history.sql import SqlTaskHistory
from stores.sql import engine as sql_engine
from stores.sql.database import Database
from stores.sql.group_commit import RowRejectedError
from stores.sql.schema import rpc_audit, tool_call_audit
from tests.contract.conftest import SQL_BACKENDS, migrated_database

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def _tool_record(n: int, **changes: Any) -> ToolCallRecord:
    record = ToolCallRecord(
        call_id=f"call_{n}",
        time=NOW,
        principal_id="alice",
        tenant="acme",
        trace_id="a" * 32,
        tool_name="calculator",
        arguments={"expression": f"{n}+1"},
        decision="allowed",
        rule="level:write",
        outcome="ok",
        result_digest="f" * 64,
        duration_seconds=0.01,
    )
    return replace(record, **changes)


async def _count(database: Database, table: object) -> int:
    async with database.engine.connect() as connection:
        return int((await connection.execute(select(func.count()).select_from(table))).scalar())  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_a_row_its_table_cannot_hold_fails_alone(kind: str, tmp_path: Path) -> None:
    """Other callers' rows in the same batch are committed; only the bad ones fail."""
    bad = {
        7: {"tool_name": "calc\x00ulator"},  # PostgreSQL text cannot hold NUL
        13: {"tenant": "t" * 130},  # longer than the column: never cut, refused
        21: {"principal_id": "p" * 300},
        29: {"tool_name": "calc\ud800"},  # a lone surrogate is not UTF-8 text
    }
    async with migrated_database(kind, tmp_path) as database:
        log = SqlAuditLog(database)
        results = await asyncio.gather(
            *(log.write(_tool_record(n, **bad.get(n, {}))) for n in range(40)),
            return_exceptions=True,
        )
        failed = {n for n, r in enumerate(results) if isinstance(r, BaseException)}
        assert failed == set(bad)
        assert all(isinstance(results[n], RowRejectedError) for n in bad)
        assert await _count(database, tool_call_audit) == 40 - len(bad)


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_a_statement_the_database_refuses_fails_alone(kind: str, tmp_path: Path) -> None:
    """A batch that fails is retried statement by statement: only the culprit fails."""
    async with migrated_database(kind, tmp_path) as database:
        grants = SqlGrantStore(database)
        taken = new_grant_id()
        first = Grant(taken, "acme", "role:a", "*", PermissionLevel.READ, NOW, "test")
        await grants.add(first)
        fresh = [replace(first, grant_id=new_grant_id()) for _ in range(30)]
        duplicate = replace(first, tenant="other")  # the same primary key again
        results = await asyncio.gather(
            *(grants.add(g) for g in [*fresh[:15], duplicate, *fresh[15:]]),
            return_exceptions=True,
        )
        errors = [r for r in results if isinstance(r, BaseException)]
        assert len(errors) == 1
        assert results.index(errors[0]) == 15
        assert not isinstance(errors[0], StoreUnavailableError)
        assert len(await grants.list("acme")) == 31
        assert await grants.list("other") == []


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_a_batch_costs_a_round_trip_per_statement_not_per_row(
    kind: str, tmp_path: Path
) -> None:
    """Rows of several stores arriving interleaved while a commit is in flight are
    committed together, each statement's rows in one executemany, and all are stored."""
    executed: list[bool] = []

    def count(*args: Any) -> None:
        executed.append(bool(args[-1]))  # executemany

    async with migrated_database(kind, tmp_path) as database:
        audit, rpcs = SqlAuditLog(database), SqlRpcAuditLog(database)
        history = SqlTaskHistory(database)
        writes: list[Any] = []
        for n in range(30):
            task = Task(task_id=f"task_{n}", tenant="acme", owner="alice", goal=f"job {n}")
            writes += [
                audit.write(_tool_record(n)),
                history.record(task),
                rpcs.write(RpcRecord(NOW, "alice", "acme", "/agentd.v1.AgentService/Execute",
                                     "OK", 0.1, "b" * 32, "c" * 64, task.task_id)),
            ]  # fmt: skip
        event.listen(Engine, "before_cursor_execute", count)
        try:
            await asyncio.gather(*writes)
        finally:
            event.remove(Engine, "before_cursor_execute", count)
        assert await _count(database, tool_call_audit) == 30
        assert await _count(database, rpc_audit) == 30
        assert len((await history.list(TaskQuery("acme", "alice", limit=100))).items) == 30
    # The first write commits alone; the 89 that arrive meanwhile take one statement each
    # of the three kinds (on the old writer: 89 statements, one per row).
    assert len(executed) <= 1 + 3, executed
    assert executed.count(True) >= 3


async def test_concurrent_writes_never_meet_a_locked_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every store's writes, many at once, while the event loop is busy: none fails.

    With a busy timeout of 20 ms, any two connections of the process competing for
    SQLite's write lock would fail with "database is locked"; the one writer holds
    the only connection that writes.
    """
    monkeypatch.setattr(sql_engine, "SQLITE_BUSY_TIMEOUT_MS", 20)
    async with migrated_database("sqlite", tmp_path) as database:
        history = SqlTaskHistory(database)
        checkpoints = SqlCheckpointStore(database)
        audit = SqlAuditLog(database)
        rpcs = SqlRpcAuditLog(database)
        grants = SqlGrantStore(database)
        keys = SqlKeyStore(database)

        async def busy_loop() -> None:
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:
                time.sleep(0.002)  # noqa: ASYNC251 - hog the loop, as a loaded server does
                await asyncio.sleep(0)

        async def one_task(n: int) -> None:
            task = Task(task_id=f"task_{n}", tenant="acme", owner="alice", goal=f"job {n}")
            await history.record(task)
            await checkpoints.save("acme", task.task_id, "state" * 50)
            await audit.write(_tool_record(n))
            await rpcs.write(
                RpcRecord(NOW, "alice", "acme", "/agentd.v1.AgentService/Execute", "OK", 0.1,
                          "b" * 32, "c" * 64, task.task_id)
            )  # fmt: skip
            await grants.add(Grant(new_grant_id(), "acme", "role:a", "*",
                                   PermissionLevel.READ, NOW, "test"))  # fmt: skip
            await keys.add(new_key("acme", f"bot-{n}", ())[0])
            await checkpoints.delete(task.task_id)
            await history.record(task)

        hog = asyncio.create_task(busy_loop())
        results = await asyncio.gather(*(one_task(n) for n in range(300)), return_exceptions=True)
        await hog
        assert [r for r in results if isinstance(r, BaseException)] == []
        assert await _count(database, rpc_audit) == 300
        assert len(await keys.list()) == 300


async def test_an_unreachable_database_is_reported_unavailable() -> None:
    database = Database.open("postgresql+asyncpg://postgres@127.0.0.1:1/agentd")  # nothing there
    try:
        with pytest.raises(StoreUnavailableError) as caught:
            await SqlAuditLog(database).write(_tool_record(1))
        assert caught.value.retry_after_seconds is not None
    finally:
        await database.close()


async def test_the_writers_kept_connection_cut_by_the_server_is_replaced(tmp_path: Path) -> None:
    """The writer keeps its PostgreSQL connection between commits (no checkout ping): when
    the server cuts it (a restart, an idle timeout), the next write fails over to a fresh
    connection and is committed, not lost and not reported to its caller."""
    async with migrated_database("postgres", tmp_path) as database:
        log = SqlAuditLog(database)
        await log.write(_tool_record(1))
        writer = database.writer
        held = writer._held
        assert held is not None  # kept after its commit
        pid = (await held.exec_driver_sql("SELECT pg_backend_pid()")).scalar_one()
        await held.rollback()
        async with database.engine.connect() as other:
            await other.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
        await log.write(_tool_record(2))
        assert writer._held is not None
        assert writer._held is not held
        assert await _count(database, tool_call_audit) == 2
