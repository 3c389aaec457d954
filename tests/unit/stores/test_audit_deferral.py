"""A unary RPC's tool-call records are committed with its RPC record, in one transaction,
and never left uncommitted: `settle` commits them, or raises why it could not."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.engine import Engine

from records.audit import RpcRecord
from records.tools.audit import ToolCallRecord
from stores.audit.deferral import deferring, others_open
from stores.audit.sql import SqlAuditLog, SqlRpcAuditLog
from stores.sql import group_commit
from stores.sql.database import Database
from stores.sql.group_commit import RowRejectedError
from stores.sql.schema import rpc_audit, tool_call_audit
from tests.contract.conftest import SQL_BACKENDS, migrated_database

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def _tool_record(n: int, tenant: str = "acme") -> ToolCallRecord:
    return ToolCallRecord(
        f"call_{n}", NOW, "alice", tenant, "a" * 32, "calculator", {}, "allowed", "r", "ok", "",
        0.01,
    )  # fmt: skip


RPC = RpcRecord(NOW, "alice", "acme", "/agentd.v1.AgentService/CallTool", "OK", 0.1, "b" * 32,
                "c" * 64)  # fmt: skip


async def _count(database: Database, table: object) -> int:
    async with database.engine.connect() as connection:
        return int((await connection.execute(select(func.count()).select_from(table))).scalar())  # type: ignore[arg-type]


@contextmanager
def _commits() -> Iterator[list[object]]:
    commits: list[object] = []

    def count(connection: Any) -> None:
        commits.append(connection)

    event.listen(Engine, "commit", count)
    try:
        yield commits
    finally:
        event.remove(Engine, "commit", count)


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_a_tool_call_record_commits_with_the_rpc_record(kind: str, tmp_path: Path) -> None:
    async with migrated_database(kind, tmp_path) as database:
        audit, rpcs = SqlAuditLog(database), SqlRpcAuditLog(database)
        with _commits() as commits, deferring() as deferral:
            await audit.write(_tool_record(1))
            assert await _count(database, tool_call_audit) == 0  # queued, not yet stored
            await rpcs.write(RPC)
            await deferral.settle()
        assert len(commits) == 1  # one transaction for both
        assert await _count(database, tool_call_audit) == 1
        assert await _count(database, rpc_audit) == 1


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_settle_commits_what_no_other_write_took(kind: str, tmp_path: Path) -> None:
    async with migrated_database(kind, tmp_path) as database:
        audit = SqlAuditLog(database)
        with deferring() as deferral:
            await audit.write(_tool_record(1))
            await audit.write(_tool_record(2))
            await deferral.settle()
            assert await _count(database, tool_call_audit) == 2
            await audit.write(_tool_record(3))  # settled: written as always
            assert await _count(database, tool_call_audit) == 3


async def test_only_the_task_that_defers_defers(tmp_path: Path) -> None:
    """A task started inside the block (an agent's run) commits its records as written."""
    async with migrated_database("sqlite", tmp_path) as database:
        audit = SqlAuditLog(database)
        with deferring() as deferral:
            await asyncio.create_task(audit.write(_tool_record(1)))
            assert await _count(database, tool_call_audit) == 1
            await deferral.settle()
        await audit.write(_tool_record(2))  # outside any block
        assert await _count(database, tool_call_audit) == 2


async def test_settle_raises_when_the_records_cannot_be_stored(tmp_path: Path) -> None:
    database = Database.open(f"sqlite+aiosqlite:///{tmp_path / 'unmigrated.db'}")  # no tables
    try:
        with deferring() as deferral:
            await SqlAuditLog(database).write(_tool_record(1))
            with pytest.raises(Exception, match="tool_call_audit"):
                await deferral.settle()
    finally:
        await database.close()


async def test_a_row_its_table_cannot_hold_is_refused_at_once(tmp_path: Path) -> None:
    async with migrated_database("sqlite", tmp_path) as database:
        with deferring() as deferral:
            with pytest.raises(RowRejectedError):
                await SqlAuditLog(database).write(_tool_record(1, tenant="t" * 130))
            await deferral.settle()
        assert await _count(database, tool_call_audit) == 0


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_rpcs_in_flight_share_a_commit(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While another RPC is in flight, a commit waits for its records (up to
    HOLD_SECONDS, long here), so calls served one after the other share a commit."""
    monkeypatch.setattr(group_commit, "HOLD_SECONDS", 0.5)
    async with migrated_database(kind, tmp_path) as database:
        rpcs = SqlRpcAuditLog(database)
        b_opened = asyncio.Event()

        async def call_a() -> None:
            with deferring() as deferral:
                await b_opened.wait()
                await rpcs.write(RPC)
                await deferral.settle()

        async def call_b() -> None:
            with deferring() as deferral:
                b_opened.set()
                for _ in range(5):  # A's commit has begun (it waits for B)
                    await asyncio.sleep(0)
                await rpcs.write(RPC)
                await deferral.settle()

        with _commits() as commits:
            await asyncio.gather(call_a(), call_b())
        assert len(commits) == 1
        assert await _count(database, rpc_audit) == 2


async def test_others_open_counts_the_blocks_open_besides_one() -> None:
    assert not others_open()
    with deferring():
        assert not others_open()  # a lone RPC's commit never waits
        with deferring():
            assert others_open()
        assert not others_open()
    assert not others_open()
