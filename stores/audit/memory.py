"""Audit records kept in this process (the embedded default, and tests)."""

from __future__ import annotations

from collections import deque
from datetime import datetime

from records.audit import RpcRecord
from records.tools.audit import ToolCallRecord


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
