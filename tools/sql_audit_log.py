"""Tool-call audit records in SQL (SQLite or PostgreSQL)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from db.schema import tool_call_audit
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
    }


class SqlAuditLog:
    """AuditSink that commits each record before `write` returns.

    Writes that arrive while a commit is in flight are gathered and committed
    together in the next transaction (group commit): every caller still waits
    for its own record to be committed, but concurrent calls share the cost.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._pending: list[tuple[ToolCallRecord, asyncio.Future[None]]] = []
        self._lock = asyncio.Lock()

    async def write(self, record: ToolCallRecord) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((record, done))
        async with self._lock:
            if not done.done():
                batch, self._pending = self._pending, []
                try:
                    async with self._engine.begin() as connection:
                        await connection.execute(
                            insert(tool_call_audit), [_values(r) for r, _ in batch]
                        )
                except asyncio.CancelledError:
                    # Hand the others back to the next writer; this caller is going away.
                    self._pending[:0] = [(r, f) for r, f in batch if f is not done]
                    raise
                except Exception as error:  # noqa: BLE001 - handed to every waiting caller
                    for _, waiter in batch:
                        waiter.set_exception(error)
                else:
                    for _, waiter in batch:
                        waiter.set_result(None)
        await done

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
