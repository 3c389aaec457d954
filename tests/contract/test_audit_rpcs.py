"""The RPC audit sink contract, on memory, SQLite and the machine's PostgreSQL: a record is
stored whole when `write` returns, the gateway that acted for a user included; the SQL
reader returns a tenant's records a page at a time, each with the cursor of the next."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from records.audit import RpcRecord
from stores.audit.base import AuditQuery, RpcAuditSink
from stores.audit.memory import InMemoryRpcAuditLog
from stores.audit.sql import SqlAuditReader, SqlRpcAuditLog
from tests.contract.conftest import SQL_BACKENDS, migrated_database

T0 = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
Reader = Callable[[str], Awaitable[list[RpcRecord]]]


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def sink(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[RpcAuditSink, Reader]]:
    if request.param == "memory":
        memory = InMemoryRpcAuditLog()

        async def from_memory(tenant: str) -> list[RpcRecord]:
            return [r for r in memory.records if r.tenant == tenant]

        yield memory, from_memory
        return
    async with migrated_database(request.param, tmp_path) as database:
        reader = SqlAuditReader(database)

        async def from_sql(tenant: str) -> list[RpcRecord]:
            return list((await reader.rpcs(AuditQuery(tenant, "rpc", limit=1000))).items)

        yield SqlRpcAuditLog(database), from_sql


def _record(n: int, tenant: str = "acme", **extra: str) -> RpcRecord:
    return RpcRecord(
        time=T0 + timedelta(seconds=n),
        principal_id=extra.get("principal_id", "alice"),
        tenant=tenant,
        method="/agentd.v1.AgentService/Execute",
        code=extra.get("code", "OK"),
        duration_seconds=0.25 * n,
        trace_id=f"{n:032x}",
        request_digest="ab" * 32,
        task_id=extra.get("task_id", ""),
        via=extra.get("via", ""),
    )


async def test_records_are_stored_whole_in_order(sink: tuple[RpcAuditSink, Reader]) -> None:
    write, read = sink
    records = [
        _record(1),
        _record(2, principal_id="bob@example.com", via="web-gateway", task_id="task_1"),
        _record(3, code="CANCELLED"),
        _record(4, tenant="globex", principal_id="mallory"),
    ]
    for record in records:
        await write.write(record)
    assert await read("acme") == records[:3]
    assert await read("globex") == records[3:]


async def test_a_long_tenant_never_shares_records_with_its_prefix(
    sink: tuple[RpcAuditSink, Reader],
) -> None:
    write, read = sink
    await write.write(_record(1, tenant="t" * 128))
    await write.write(_record(2, tenant="t" * 127))
    assert [r.tenant for r in await read("t" * 128)] == ["t" * 128]
    assert [r.tenant for r in await read("t" * 127)] == ["t" * 127]


@pytest.mark.parametrize("backend", SQL_BACKENDS)
async def test_the_reader_pages_a_tenants_records_with_a_cursor_to_the_next_page(
    backend: str, tmp_path: Path
) -> None:
    async with migrated_database(backend, tmp_path) as database:
        log, reader = SqlRpcAuditLog(database), SqlAuditReader(database)
        for n in range(1, 6):
            await log.write(_record(n))
            await log.write(_record(n, tenant="globex"))
        seen: list[str] = []
        query = AuditQuery("acme", "rpc", limit=2)
        pages = []
        while True:
            page = await reader.rpcs(query)
            pages.append(len(page.items))
            seen.extend(r.trace_id for r in page.items)
            if page.next is None:
                break
            query = AuditQuery("acme", "rpc", limit=2, after=page.next)
        assert pages == [2, 2, 1]
        assert seen == [_record(n).trace_id for n in range(1, 6)]
        exact = await reader.rpcs(AuditQuery("acme", "rpc", limit=5))
        assert len(exact.items) == 5
        assert exact.next is None  # no more than the page: the last page
