"""The RPC audit log in SQL, and reading either audit log page by page."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from audit.records import AuditQuery, RpcRecord
from db.group_commit import GroupCommit
from db.schema import rpc_audit, tool_call_audit
from db.times import aware
from tools.audit import ToolCallRecord
from tools.sql_audit_log import tool_call_from_row


class SqlRpcAuditLog:
    """RpcAuditSink committing each record before `write` returns (group commit)."""

    def __init__(self, engine: AsyncEngine, rows: GroupCommit | None = None) -> None:
        self._rows = rows or GroupCommit(engine)

    async def write(self, record: RpcRecord) -> None:
        await self._rows.insert(
            rpc_audit,
            {
                "time": record.time,
                "principal_id": record.principal_id[:256],
                "tenant": record.tenant[:128],
                "method": record.method[:200],
                "code": record.code,
                "duration_seconds": record.duration_seconds,
                "trace_id": record.trace_id,
                "request_digest": record.request_digest,
                "task_id": record.task_id[:64],
            },
        )


class SqlAuditReader:
    """Pages of a tenant's audit records, oldest first, keyed by row id."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def rpcs(self, query: AuditQuery) -> list[tuple[int, RpcRecord]]:
        table = rpc_audit
        statement = select(table).where(table.c.tenant == query.tenant, table.c.id > query.after_id)
        if query.principal_id:
            statement = statement.where(table.c.principal_id == query.principal_id)
        if query.outcome:
            statement = statement.where(table.c.code == query.outcome)
        if query.task_id:
            statement = statement.where(table.c.task_id == query.task_id)
        statement = _window(statement, table, query)
        return [(row["id"], rpc_from_row(row)) for row in await self._rows(statement, query)]

    async def tool_calls(self, query: AuditQuery) -> list[tuple[int, ToolCallRecord]]:
        table = tool_call_audit
        statement = select(table).where(table.c.tenant == query.tenant, table.c.id > query.after_id)
        if query.principal_id:
            statement = statement.where(table.c.principal_id == query.principal_id)
        if query.tool_name:
            statement = statement.where(table.c.tool_name == query.tool_name)
        if query.outcome:
            statement = statement.where(table.c.outcome == query.outcome)
        if query.task_id:
            statement = statement.where(table.c.task_id == query.task_id)
        statement = _window(statement, table, query)
        return [(row["id"], tool_call_from_row(row)) for row in await self._rows(statement, query)]

    async def _rows(self, statement: Any, query: AuditQuery) -> list[Any]:
        async with self._engine.connect() as connection:
            result = await connection.execute(statement.order_by("id").limit(query.limit))
            return list(result.mappings().all())


def _window(statement: Any, table: Any, query: AuditQuery) -> Any:
    if query.since is not None:
        statement = statement.where(table.c.time >= query.since)
    if query.until is not None:
        statement = statement.where(table.c.time < query.until)
    return statement


def rpc_from_row(row: Any) -> RpcRecord:
    return RpcRecord(
        time=aware(row["time"]),
        principal_id=row["principal_id"],
        tenant=row["tenant"],
        method=row["method"],
        code=row["code"],
        duration_seconds=row["duration_seconds"],
        trace_id=row["trace_id"],
        request_digest=row["request_digest"],
        task_id=row["task_id"],
    )
