"""The audit sink contract on memory, SQLite and the machine's PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

import pytest

from records.tools.audit import ToolCallRecord
from stores.audit.memory import InMemoryAuditLog
from stores.audit.sql import SqlAuditLog
from tests.contract.conftest import SQL_BACKENDS, migrated_database


class QueryableAudit(Protocol):
    async def write(self, record: ToolCallRecord) -> None: ...

    async def query(
        self, tenant: str, *, since: datetime | None = None, limit: int = 1_000
    ) -> list[ToolCallRecord]: ...


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def audit_log(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[QueryableAudit]:
    if request.param == "memory":
        yield InMemoryAuditLog()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlAuditLog(database)


def _record(n: int, tenant: str = "acme", at: datetime | None = None) -> ToolCallRecord:
    return ToolCallRecord(
        call_id=f"call_{n}",
        time=at or datetime(2026, 11, 1, 12, 0, n, tzinfo=UTC),
        principal_id="alice",
        tenant=tenant,
        trace_id="a" * 32,
        tool_name="http_request",
        arguments={
            "url": "https://example.com",
            "headers": {"authorization": "[REDACTED]"},
            "n": n,
        },
        decision="allowed",
        rule="level:write",
        outcome="ok",
        result_digest="f" * 64,
        duration_seconds=0.25,
    )


async def test_write_then_query_in_order(audit_log: QueryableAudit) -> None:
    for n in (1, 2, 3):
        await audit_log.write(_record(n))
    await audit_log.write(_record(4, tenant="globex"))
    got = await audit_log.query("acme")
    assert [r.call_id for r in got] == ["call_1", "call_2", "call_3"]
    assert got[0] == _record(1)
    assert [r.call_id for r in await audit_log.query("globex")] == ["call_4"]


async def test_query_since_and_limit(audit_log: QueryableAudit) -> None:
    base = datetime(2026, 11, 1, tzinfo=UTC)
    for n in range(5):
        await audit_log.write(_record(n, at=base + timedelta(minutes=n)))
    later = await audit_log.query("acme", since=base + timedelta(minutes=3))
    assert [r.call_id for r in later] == ["call_3", "call_4"]
    assert len(await audit_log.query("acme", limit=2)) == 2


async def test_hostile_values_are_stored_exactly(audit_log: QueryableAudit) -> None:
    odd = {"x": "nul \x00 byte", "quote": "'; DROP TABLE tool_call_audit; --", "emoji": "😀"}
    hostile = replace(_record(1), arguments=odd, principal_id="ali\u202ece")
    await audit_log.write(hostile)
    [got] = await audit_log.query("acme")
    assert got.arguments == odd
    assert got.principal_id == "ali\u202ece"


async def test_concurrent_writes_are_all_committed(audit_log: QueryableAudit) -> None:
    await asyncio.gather(*(audit_log.write(_record(n % 60)) for n in range(50)))
    assert len(await audit_log.query("acme")) == 50


async def test_attempts_of_one_call_are_kept_apart(audit_log: QueryableAudit) -> None:
    for attempt in (1, 2, 3):
        await audit_log.write(replace(_record(1), attempt=attempt, outcome="timeout"))
    got = await audit_log.query("acme")
    assert [(r.call_id, r.attempt) for r in got] == [("call_1", 1), ("call_1", 2), ("call_1", 3)]
