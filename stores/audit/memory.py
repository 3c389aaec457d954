"""Audit records kept in this process (the embedded default, and tests)."""

from __future__ import annotations

from collections import deque
from datetime import datetime

from records.audit import RpcRecord
from records.guardrails.events import GuardrailRecord
from records.paging import Page, PositionCursor
from records.tools.audit import ToolCallRecord
from stores.audit.base import AuditQuery


class InMemoryAuditLog:
    """Keeps the latest records in memory (the embedded default, and for tests)."""

    def __init__(self, capacity: int = 10_000) -> None:
        self._records: deque[ToolCallRecord] = deque(maxlen=capacity)

    async def write(self, record: ToolCallRecord) -> None:
        self._records.append(record)

    @property
    def records(self) -> list[ToolCallRecord]:
        return list(self._records)

    async def query(
        self, tenant: str, *, since: datetime | None = None, limit: int = 1_000
    ) -> list[ToolCallRecord]:
        """A tenant's records, oldest first."""
        chosen = [
            r for r in self._records if r.tenant == tenant and (since is None or r.time >= since)
        ]
        return chosen[:limit]


class InMemoryRpcAuditLog:
    def __init__(self, capacity: int = 10_000) -> None:
        self._records: deque[RpcRecord] = deque(maxlen=capacity)

    async def write(self, record: RpcRecord) -> None:
        self._records.append(record)

    @property
    def records(self) -> list[RpcRecord]:
        return list(self._records)


class InMemoryGuardrailAuditLog:
    """GuardrailAuditSink keeping the latest decisions in memory, and reading them a page
    at a time as `SqlAuditReader.guardrails` does (the position of a record is its number
    in the order written, from 1; it stays the same when older ones fall out)."""

    def __init__(self, capacity: int = 10_000) -> None:
        self._records: deque[tuple[int, GuardrailRecord]] = deque(maxlen=capacity)
        self._written = 0

    async def write(self, record: GuardrailRecord) -> None:
        self._written += 1
        self._records.append((self._written, record))

    @property
    def records(self) -> list[GuardrailRecord]:
        return [record for _, record in self._records]

    async def guardrails(self, query: AuditQuery) -> Page[GuardrailRecord, PositionCursor]:
        after = query.after.position if query.after is not None else 0
        chosen = [
            (position, record)
            for position, record in self._records
            if position > after and guardrail_matches(record, query)
        ]
        page = Page.cut(chosen[: query.limit + 1], query.limit, lambda row: PositionCursor(row[0]))
        return Page(tuple(record for _, record in page.items), page.next)


def guardrail_matches(record: GuardrailRecord, query: AuditQuery) -> bool:
    """Whether `record` is one `query` asks for (its tenant, and every filter it sets)."""
    wanted = (
        (query.tenant, record.tenant),
        (query.principal_id or record.principal_id, record.principal_id),
        (query.tool_name or record.tool_name, record.tool_name),
        (query.outcome or record.action, record.action),
        (query.task_id or record.task_id, record.task_id),
        (query.check or record.check, record.check),
    )
    return (
        all(asked == held for asked, held in wanted)
        and (query.since is None or record.time >= query.since)
        and (query.until is None or record.time < query.until)
    )
