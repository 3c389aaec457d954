"""The audit logs in SQL (tool calls, RPCs, guardrail decisions), and reading each page by
page."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from records.audit import RpcRecord
from records.guardrails.events import GuardrailRecord
from records.paging import Page, PositionCursor
from records.tools.audit import ToolCallRecord
from stores.audit import deferral as deferred
from stores.audit.base import AuditQuery
from stores.sql.database import Database
from stores.sql.schema import guardrail_audit, rpc_audit, tool_call_audit
from stores.sql.times import aware

R = TypeVar("R")


class SqlRpcAuditLog:
    """RpcAuditSink committing each record before `write` returns (the database's writer
    groups concurrent records into one commit).

    Values are stored whole, never cut: a tenant cut to its column's length
    could read another tenant's records. Identifiers are checked where they
    enter (authentication, request validation); a record that still does not
    fit is refused alone (`RowRejectedError`), never with its batch.
    """

    def __init__(self, database: Database) -> None:
        self._writer = database.writer

    async def write(self, record: RpcRecord) -> None:
        await self._writer.insert(
            rpc_audit,
            {
                "time": record.time,
                "principal_id": record.principal_id,
                "tenant": record.tenant,
                "method": record.method,
                "code": record.code,
                "duration_seconds": record.duration_seconds,
                "trace_id": record.trace_id,
                "request_digest": record.request_digest,
                "task_id": record.task_id,
                "via": record.via,
            },
        )


class SqlAuditReader:
    """Pages of a tenant's audit records, oldest first, keyed by row id (the cursor of a
    page is its last record's `PositionCursor`)."""

    def __init__(self, engine: AsyncEngine | Database) -> None:
        self._engine = engine.engine if isinstance(engine, Database) else engine

    async def rpcs(self, query: AuditQuery) -> Page[RpcRecord, PositionCursor]:
        table = rpc_audit
        statement = select(table).where(table.c.tenant == query.tenant, table.c.id > _after(query))
        if query.principal_id:
            statement = statement.where(table.c.principal_id == query.principal_id)
        if query.outcome:
            statement = statement.where(table.c.code == query.outcome)
        if query.task_id:
            statement = statement.where(table.c.task_id == query.task_id)
        statement = _window(statement, table, query)
        rows = await self._rows(statement, query)
        return _page([(row["id"], rpc_from_row(row)) for row in rows], query.limit)

    async def tool_calls(self, query: AuditQuery) -> Page[ToolCallRecord, PositionCursor]:
        table = tool_call_audit
        statement = select(table).where(table.c.tenant == query.tenant, table.c.id > _after(query))
        if query.principal_id:
            statement = statement.where(table.c.principal_id == query.principal_id)
        if query.tool_name:
            statement = statement.where(table.c.tool_name == query.tool_name)
        if query.outcome:
            statement = statement.where(table.c.outcome == query.outcome)
        if query.task_id:
            statement = statement.where(table.c.task_id == query.task_id)
        statement = _window(statement, table, query)
        rows = await self._rows(statement, query)
        return _page([(row["id"], tool_call_from_row(row)) for row in rows], query.limit)

    async def guardrails(self, query: AuditQuery) -> Page[GuardrailRecord, PositionCursor]:
        table = guardrail_audit
        statement = select(table).where(table.c.tenant == query.tenant, table.c.id > _after(query))
        for column, wanted in (
            (table.c.principal_id, query.principal_id),
            (table.c.tool_name, query.tool_name),
            (table.c.action, query.outcome),
            (table.c.task_id, query.task_id),
            (table.c.check_name, query.check),
        ):
            if wanted:
                statement = statement.where(column == wanted)
        statement = _window(statement, table, query)
        rows = await self._rows(statement, query)
        return _page([(row["id"], guardrail_from_row(row)) for row in rows], query.limit)

    async def _rows(self, statement: Any, query: AuditQuery) -> list[Any]:
        """The page's rows and one more (when there is one: more follow)."""
        async with self._engine.connect() as connection:
            result = await connection.execute(statement.order_by("id").limit(query.limit + 1))
            return list(result.mappings().all())


def _after(query: AuditQuery) -> int:
    return query.after.position if query.after is not None else 0


def _page(rows: list[tuple[int, R]], size: int) -> Page[R, PositionCursor]:
    """The page of `rows` (row id, record), its cursor the row id of its last record."""
    page = Page.cut(rows, size, lambda row: PositionCursor(row[0]))
    return Page(tuple(record for _, record in page.items), page.next)


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
        via=row["via"],
    )


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
        "attempt": record.attempt,
        "cached": record.cached,
        "parent_task_id": record.parent_task_id,
        "root_task_id": record.root_task_id,
    }


class SqlAuditLog:
    """AuditSink that commits each record before `write` returns (the database's writer
    groups concurrent records into one commit); within an RPC's `deferring()` block, with
    the RPC's record, before the RPC's response (`stores.audit.deferral`)."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def write(self, record: ToolCallRecord) -> None:
        deferral = deferred.current()
        if deferral is not None:  # committed with the RPC's record, before its response
            deferral.add(
                self._writer.enqueue(tool_call_audit, _values(record)),
                self._writer.commit_pending,
            )
            return
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
        attempt=row["attempt"],
        cached=bool(row["cached"]),
        parent_task_id=row["parent_task_id"],
        root_task_id=row["root_task_id"],
    )


class SqlGuardrailAudit:
    """GuardrailAuditSink committing each decision before `write` returns (the database's
    writer groups concurrent records into one commit); within a unary RPC's `deferring()`
    block (a decision at a task's intake), with the RPC's record, before its response.

    Values are stored whole, never cut, as the other audit logs': a record that does not
    fit its columns is refused alone (`RowRejectedError`)."""

    def __init__(self, database: Database) -> None:
        self._writer = database.writer

    async def write(self, record: GuardrailRecord) -> None:
        values = _guardrail_values(record)
        deferral = deferred.current()
        if deferral is not None:  # committed with the RPC's record, before its response
            deferral.add(self._writer.enqueue(guardrail_audit, values), self._writer.commit_pending)
            return
        await self._writer.insert(guardrail_audit, values)


def _guardrail_values(record: GuardrailRecord) -> dict[str, Any]:
    return {
        "time": record.time,
        "tenant": record.tenant,
        "principal_id": record.principal_id,
        "check_name": record.check,
        "rule": record.rule,
        "point": record.point,
        "action": record.action,
        "reason": record.reason,
        "text_digest": record.text_digest,
        "task_id": record.task_id,
        "agent": record.agent,
        "tool_name": record.tool_name,
        "call_id": record.call_id,
        "trace_id": record.trace_id,
    }


def guardrail_from_row(row: Any) -> GuardrailRecord:
    return GuardrailRecord(
        time=aware(row["time"]),
        tenant=row["tenant"],
        principal_id=row["principal_id"],
        check=row["check_name"],
        rule=row["rule"],
        point=row["point"],
        action=row["action"],
        reason=row["reason"],
        text_digest=row["text_digest"],
        task_id=row["task_id"],
        agent=row["agent"],
        tool_name=row["tool_name"],
        call_id=row["call_id"],
        trace_id=row["trace_id"],
    )
