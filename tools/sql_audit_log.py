"""Tool-call audit records in SQL (SQLite or PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from db.schema import tool_call_audit
from tools.audit import ToolCallRecord


class SqlAuditLog:
    """AuditSink that commits each record before `write` returns."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def write(self, record: ToolCallRecord) -> None:
        async with self._engine.begin() as connection:
            await connection.execute(
                insert(tool_call_audit).values(
                    call_id=record.call_id,
                    time=record.time,
                    principal_id=record.principal_id,
                    tenant=record.tenant,
                    trace_id=record.trace_id,
                    tool_name=record.tool_name,
                    arguments=dict(record.arguments),
                    decision=record.decision,
                    rule=record.rule,
                    outcome=record.outcome,
                    result_digest=record.result_digest,
                    duration_seconds=record.duration_seconds,
                )
            )

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
        return [
            ToolCallRecord(
                call_id=row["call_id"],
                time=_aware(row["time"]),
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
            )
            for row in rows
        ]


def _aware(value: datetime) -> datetime:
    """SQLite hands back naive datetimes; every time agentd stores is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
