"""Tool-call audit records in SQL (SQLite or PostgreSQL)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select

from db.database import Database
from db.schema import tool_call_audit
from db.times import aware
from tools.audit import ToolCallRecord


def _values(record: ToolCallRecord) -> dict[str, Any]:
    return {
        "call_id": record.call_id,
        "time": record.time,
        "principal_id": record.principal_id,
        "tenant": record.tenant,
        "trace_id": record.trace_id,
        "tool_name": record.tool_name,
        "arguments": dict(record.arguments),
        "decision": record.decision,
        "rule": record.rule,
        "outcome": record.outcome,
        "result_digest": record.result_digest,
        "duration_seconds": record.duration_seconds,
        "task_id": record.task_id,
        "approval": record.approval,
        "approved_by": record.approved_by,
        "approval_comment": record.approval_comment,
    }


class SqlAuditLog:
    """AuditSink that commits each record before `write` returns (the database's writer
    groups concurrent records into one commit)."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def write(self, record: ToolCallRecord) -> None:
        await self._writer.insert(tool_call_audit, _values(record))

    async def query(
        self, tenant: str, *, since: datetime | None = None, limit: int = 1_000
    ) -> list[ToolCallRecord]:
        """A tenant's records, oldest first."""
        query = select(tool_call_audit).where(tool_call_audit.c.tenant == tenant)
        if since is not None:
            query = query.where(tool_call_audit.c.time >= since)
        query = query.order_by(tool_call_audit.c.time, tool_call_audit.c.id).limit(limit)
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return [tool_call_from_row(row) for row in rows]


def tool_call_from_row(row: Any) -> ToolCallRecord:
    return ToolCallRecord(
        call_id=row["call_id"],
        time=aware(row["time"]),
        principal_id=row["principal_id"],
        tenant=row["tenant"],
        trace_id=row["trace_id"],
        tool_name=row["tool_name"],
        arguments=row["arguments"],
        decision=row["decision"],
        rule=row["rule"],
        outcome=row["outcome"],
        result_digest=row["result_digest"],
        duration_seconds=row["duration_seconds"],
        task_id=row["task_id"],
        approval=row["approval"],
        approved_by=row["approved_by"],
        approval_comment=row["approval_comment"],
    )
