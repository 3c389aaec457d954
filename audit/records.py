"""What the audit log keeps of each RPC, and how records are asked for."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol


@dataclass(frozen=True, slots=True)
class RpcRecord:
    """One RPC served (a stream: when it ended)."""

    time: datetime
    principal_id: str
    """Who called; "unauthenticated" when credentials were refused."""
    tenant: str
    method: str
    code: str
    """The final status code's name: OK, NOT_FOUND, ..."""
    duration_seconds: float
    trace_id: str
    request_digest: str
    """SHA-256 of the request message as received; empty for streamed requests."""
    task_id: str = ""
    via: str = ""
    """The gateway that called on the principal's behalf, if one did."""


class RpcAuditSink(Protocol):
    async def write(self, record: RpcRecord) -> None:
        """Store one record; it is stored when this returns."""
        ...


class InMemoryRpcAuditLog:
    def __init__(self, capacity: int = 10_000) -> None:
        self._records: deque[RpcRecord] = deque(maxlen=capacity)

    async def write(self, record: RpcRecord) -> None:
        self._records.append(record)

    @property
    def records(self) -> list[RpcRecord]:
        return list(self._records)


@dataclass(frozen=True, slots=True)
class AuditQuery:
    """Filters of one page of records; always within one tenant."""

    tenant: str
    kind: Literal["rpc", "tool_call"]
    principal_id: str = ""
    tool_name: str = ""
    outcome: str = ""
    task_id: str = ""
    since: datetime | None = None
    until: datetime | None = None
    limit: int = 100
    after_id: int = 0
    """Records after this row id (the page token)."""
