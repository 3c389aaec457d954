"""The guardrail audit sink contract, on memory, SQLite and the machine's PostgreSQL: a
decision is stored whole when `write` returns (a digest of the text, never the text);
the reader returns a tenant's decisions a page at a time, oldest first, each page with
the cursor of the next, and filters them by principal, task, tool, action, check and
time."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from records.guardrails.events import GuardrailRecord
from records.paging import Page, PositionCursor
from stores.audit.base import AuditQuery, GuardrailAuditSink
from stores.audit.memory import InMemoryGuardrailAuditLog
from stores.audit.sql import SqlAuditReader, SqlGuardrailAudit
from stores.sql.group_commit import RowRejectedError
from tests.contract.conftest import SQL_BACKENDS, migrated_database

T0 = datetime(2026, 12, 12, 9, 0, tzinfo=UTC)
Read = Callable[[AuditQuery], Awaitable[Page[GuardrailRecord, PositionCursor]]]


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def log(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[GuardrailAuditSink, Read]]:
    if request.param == "memory":
        memory = InMemoryGuardrailAuditLog()
        yield memory, memory.guardrails
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlGuardrailAudit(database), SqlAuditReader(database).guardrails


def _record(n: int, tenant: str = "acme", **extra: str) -> GuardrailRecord:
    return GuardrailRecord(
        time=T0 + timedelta(seconds=n),
        tenant=tenant,
        principal_id=extra.get("principal_id", "alice"),
        check=extra.get("check", "no-cards"),
        rule=extra.get("rule", "card"),
        point=extra.get("point", "output"),
        action=extra.get("action", "redact"),
        reason=extra.get("reason", "a payment card number"),
        text_digest=f"{n:064x}",
        task_id=extra.get("task_id", "task_1"),
        agent=extra.get("agent", "support"),
        tool_name=extra.get("tool_name", ""),
        call_id=extra.get("call_id", ""),
        trace_id=f"{n:032x}",
    )


async def _all(read: Read, query: AuditQuery) -> list[GuardrailRecord]:
    return list((await read(replace(query, limit=1000))).items)


async def test_records_are_stored_whole_in_order(log: tuple[GuardrailAuditSink, Read]) -> None:
    sink, read = log
    records = [
        _record(1),
        _record(
            2,
            point="tool_arguments",
            action="block",
            check="no-secrets",
            rule="deny:aws-key",
            tool_name="http.fetch",
            call_id="call_9",
            reason="é" * 600,
        ),
        _record(3, action="record", rule="moderation:harassment", task_id="", agent=""),
        _record(4, tenant="globex", principal_id="mallory"),
    ]
    for record in records:
        await sink.write(record)
    assert await _all(read, AuditQuery("acme", "guardrail")) == records[:3]
    assert await _all(read, AuditQuery("globex", "guardrail")) == records[3:]
    assert await _all(read, AuditQuery("initech", "guardrail")) == []


async def test_the_filters_each_narrow_the_records(log: tuple[GuardrailAuditSink, Read]) -> None:
    sink, read = log
    records = [
        _record(1),
        _record(2, principal_id="bob", task_id="task_2"),
        _record(3, point="tool_result", tool_name="search", check="no-pii", action="block"),
        _record(4, tenant="globex", check="no-pii", action="block", task_id="task_2"),
    ]
    for record in records:
        await sink.write(record)

    async def traces(**filters: object) -> list[str]:
        query = AuditQuery("acme", "guardrail", **filters)  # type: ignore[arg-type]
        return [r.trace_id for r in await _all(read, query)]

    trace = [r.trace_id for r in records]
    assert await traces(principal_id="bob") == [trace[1]]
    assert await traces(task_id="task_2") == [trace[1]]
    assert await traces(tool_name="search") == [trace[2]]
    assert await traces(outcome="block") == [trace[2]]
    assert await traces(check="no-pii") == [trace[2]]
    assert await traces(check="no-pii", outcome="redact") == []
    assert await traces(since=T0 + timedelta(seconds=2)) == trace[1:3]
    assert await traces(until=T0 + timedelta(seconds=2)) == trace[:1]


async def test_the_reader_pages_a_tenants_records_with_a_cursor_to_the_next_page(
    log: tuple[GuardrailAuditSink, Read],
) -> None:
    sink, read = log
    for n in range(1, 6):
        await sink.write(_record(n))
        await sink.write(_record(n, tenant="globex"))
    seen: list[str] = []
    sizes = []
    query = AuditQuery("acme", "guardrail", limit=2)
    while True:
        page = await read(query)
        sizes.append(len(page.items))
        seen.extend(r.trace_id for r in page.items)
        if page.next is None:
            break
        query = AuditQuery("acme", "guardrail", limit=2, after=page.next)
    assert sizes == [2, 2, 1]
    assert seen == [_record(n).trace_id for n in range(1, 6)]
    exact = await read(AuditQuery("acme", "guardrail", limit=5))
    assert len(exact.items) == 5
    assert exact.next is None  # no more than the page: the last page


@pytest.mark.parametrize("backend", SQL_BACKENDS)
async def test_a_record_too_long_for_its_columns_is_refused_alone(
    backend: str, tmp_path: Path
) -> None:
    async with migrated_database(backend, tmp_path) as database:
        sink, reader = SqlGuardrailAudit(database), SqlAuditReader(database)
        with pytest.raises(RowRejectedError):
            await sink.write(_record(1, tenant="t" * 129))
        await sink.write(_record(2))
        page = await reader.guardrails(AuditQuery("acme", "guardrail"))
        assert [r.trace_id for r in page.items] == [_record(2).trace_id]
