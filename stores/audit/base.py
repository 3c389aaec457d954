"""Where audit records go and how they are asked for.

The records are their owners': `records.tools.audit.ToolCallRecord` (one per tool call the
registry is asked to make), `records.audit.RpcRecord` (one per RPC) and
`records.guardrails.events.GuardrailRecord` (one per guardrail decision)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from records.audit import RpcRecord
from records.guardrails.events import GuardrailRecord
from records.paging import PositionCursor
from records.tools.audit import ToolCallRecord


class AuditSink(Protocol):
    """Where audit records go. `write` must not lose a record it returned from."""

    async def write(self, record: ToolCallRecord) -> None:
        """Store one record."""
        ...


class GuardrailAuditSink(Protocol):
    async def write(self, record: GuardrailRecord) -> None:
        """Store one guardrail decision; it is stored when this returns."""
        ...


class RpcAuditSink(Protocol):
    async def write(self, record: RpcRecord) -> None:
        """Store one record; it is stored when this returns."""
        ...


AuditKind = Literal["rpc", "tool_call", "guardrail"]
"""Which audit log a query reads."""


@dataclass(frozen=True, slots=True)
class AuditQuery:
    """Filters of one page of records; always within one tenant."""

    tenant: str
    kind: AuditKind
    principal_id: str = ""
    tool_name: str = ""
    outcome: str = ""
    """A tool call's outcome, an RPC's code, or a guardrail decision's action."""
    task_id: str = ""
    check: str = ""
    """Only a guardrail check's decisions (guardrail records)."""
    since: datetime | None = None
    until: datetime | None = None
    limit: int = 100
    """The size of the page."""
    after: PositionCursor | None = None
    """Records after this row id (None: from the first)."""
