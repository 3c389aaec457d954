"""The usage ledger in SQL (SQLite or PostgreSQL): `model_calls`, a row per model call
(migration 0023), shared by every replica.

Writes go through the database's one writer: `record` is an INSERT that leaves a call id
already kept as it is (ON CONFLICT DO NOTHING), so a call recorded twice (a retried
write, two replicas) is one row; `sweep` is one bounded DELETE. Reads are aggregates
computed by the database (GROUP BY, SUM), never rows summed in Python.

Times are stored and compared in UTC: SQLite keeps a time's wall clock without its zone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    RowMapping,
    String,
    and_,
    case,
    delete,
    false,
    func,
    literal_column,
    select,
)

from records.usage.budgets import BudgetScope, BudgetUnit
from records.usage.ledger import CallOutcome, ModelCall, UsageGroup, UsageQuery, UsageReport
from records.usage.ledger import UsageTotals as Totals
from stores.sql.database import Database, insert_of
from stores.sql.schema import model_calls
from stores.usage.base import agent_path

_M = model_calls.c
_FAILED = CallOutcome.FAILED.value
_OK = CallOutcome.OK.value


def utc(value: datetime) -> datetime:
    """`value` in UTC, as every time is stored and compared."""
    return value.astimezone(UTC)


def count_where(condition: ColumnElement[bool]) -> ColumnElement[Any]:
    """How many rows of a group meet `condition` (0 for none)."""
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def total(column: ColumnElement[Any]) -> ColumnElement[Any]:
    """The sum of `column` over a group (0 for none)."""
    return func.coalesce(func.sum(column), 0)


_SUMS = (
    func.count().label("calls"),
    count_where(_M.outcome == _FAILED).label("failed_calls"),
    total(_M.prompt_tokens).label("prompt_tokens"),
    total(_M.cached_prompt_tokens).label("cached_prompt_tokens"),
    total(_M.completion_tokens).label("completion_tokens"),
    total(_M.reasoning_tokens).label("reasoning_tokens"),
    total(_M.cost_micros).label("cost_micros"),
    count_where(and_(_M.priced == false(), _M.outcome == _OK)).label("unpriced_calls"),
)
"""What a report adds up for each group (PostgreSQL's SUM of a BIGINT is NUMERIC: read
back with `int`)."""


def _row(call: ModelCall) -> dict[str, Any]:
    return {
        "call_id": call.call_id,
        "at": utc(call.at),
        "tenant": call.tenant,
        "task_id": call.task_id,
        "root_task_id": call.root_task_id,
        "end_user": call.user,
        "agent": call.agent,
        "agent_version": call.agent_version,
        "agent_path": agent_path(call.agents),
        "provider": call.provider,
        "model": call.model,
        "role": call.role,
        "outcome": call.outcome.value,
        "prompt_tokens": call.prompt_tokens,
        "cached_prompt_tokens": call.cached_prompt_tokens,
        "completion_tokens": call.completion_tokens,
        "reasoning_tokens": call.reasoning_tokens,
        "cost_micros": call.cost_micros,
        "priced": call.priced,
        "latency_ms": call.latency_ms,
        "estimated": call.estimated,
    }


def _totals(values: dict[UsageGroup, str], row: RowMapping) -> Totals:
    return Totals(
        values=values,
        calls=int(row["calls"]),
        failed_calls=int(row["failed_calls"]),
        prompt_tokens=int(row["prompt_tokens"]),
        cached_prompt_tokens=int(row["cached_prompt_tokens"]),
        completion_tokens=int(row["completion_tokens"]),
        reasoning_tokens=int(row["reasoning_tokens"]),
        cost_micros=int(row["cost_micros"]),
        unpriced_calls=int(row["unpriced_calls"]),
    )


class SqlUsageLedger:
    """UsageLedger on a database (owned by the caller); reads on its engine, writes
    through its writer. Also `Expiring` (retention): `sweep` deletes the oldest calls."""

    name = "usage ledger rows"

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer
        self._dialect = database.dialect
        if self._dialect not in ("sqlite", "postgresql"):
            raise ValueError(f"the usage ledger needs SQLite or PostgreSQL, not {self._dialect}")
        self._insert = insert_of(self._dialect, model_calls).on_conflict_do_nothing(
            index_elements=[_M.call_id]
        )

    async def record(self, call: ModelCall) -> None:
        await self._writer.execute(self._insert, _row(call))

    def _column(self, group: UsageGroup) -> ColumnElement[str]:
        """The value of `group` in SQL. DAY is the UTC date as text; its constants are
        literals, so that GROUP BY and SELECT hold the same expression on PostgreSQL."""
        if group is UsageGroup.DAY:
            if self._dialect == "postgresql":
                utc_time = func.timezone(literal_column("'UTC'"), _M.at)
                return func.to_char(utc_time, literal_column("'YYYY-MM-DD'"), type_=String)
            return func.date(_M.at, type_=String)  # the stored text's date: UTC already
        return {
            UsageGroup.TENANT: _M.tenant,
            UsageGroup.USER: _M.end_user,
            UsageGroup.AGENT: _M.agent,
            UsageGroup.MODEL: _M.model,
            UsageGroup.PROVIDER: _M.provider,
        }[group]

    def _ordered(self, column: ColumnElement[str]) -> ColumnElement[str]:
        """`column` compared by code point, as SQLite and Python compare text (a
        PostgreSQL database's collation may sort otherwise)."""
        return column.collate("C") if self._dialect == "postgresql" else column

    async def report(self, query: UsageQuery) -> UsageReport:
        groups = tuple(dict.fromkeys(query.group_by))
        where = _filters(query)
        columns = [self._column(g) for g in groups]
        # No groups: one aggregate row for the tenant, whether it made calls or not.
        page = select(*(c.label(f"g{i}") for i, c in enumerate(columns)), *_SUMS).where(*where)
        if groups:
            page = page.group_by(*columns).order_by(*(self._ordered(c) for c in columns))
        page = page.limit(query.limit + 1).offset(query.offset)
        async with self._engine.connect() as connection:
            found = (await connection.execute(page)).mappings().all()
            whole = (await connection.execute(select(*_SUMS).where(*where))).mappings().one()
        rows = tuple(
            _totals({g: str(row[f"g{i}"]) for i, g in enumerate(groups)}, row)
            for row in found[: query.limit]
        )
        return UsageReport(rows=rows, total=_totals({}, whole), more=len(found) > query.limit)

    async def spent(
        self,
        tenant: str,
        scope: BudgetScope,
        subject: str,
        unit: BudgetUnit,
        start: datetime | None,
        end: datetime | None,
    ) -> int:
        amount = (
            _M.prompt_tokens + _M.completion_tokens if unit is BudgetUnit.TOKENS else _M.cost_micros
        )
        statement = select(total(amount)).where(_M.tenant == tenant)
        if start is not None:
            statement = statement.where(_M.at >= utc(start))
        if end is not None:
            statement = statement.where(_M.at < utc(end))
        if scope is BudgetScope.USER:
            statement = statement.where(_M.end_user == subject)
        elif scope is BudgetScope.AGENT:
            statement = statement.where(self._in_path(f"/{subject}/"))
        async with self._engine.connect() as connection:
            return int((await connection.execute(statement)).scalar_one())

    def _in_path(self, needle: str) -> ColumnElement[bool]:
        """Whether a call's `agent_path` holds `needle` as it is: a position search, not
        LIKE, so that neither `%` and `_` in it nor SQLite's case-blind LIKE can match
        another agent's calls."""
        if self._dialect == "postgresql":
            return func.strpos(_M.agent_path, needle) > 0
        return func.instr(_M.agent_path, needle) > 0

    async def sweep(self, before: datetime, limit: int) -> int:
        """Delete at most `limit` of the calls made before `before`, oldest first. On
        PostgreSQL the rows picked are locked, passing over those another replica's sweep
        holds (FOR UPDATE SKIP LOCKED); on SQLite the one writer orders sweeps."""
        picked = select(_M.call_id).where(_M.at < utc(before)).order_by(_M.at).limit(limit)
        if self._dialect == "postgresql":
            picked = picked.with_for_update(skip_locked=True)
        statement = delete(model_calls).where(_M.call_id.in_(picked.scalar_subquery()))
        return await self._writer.execute(statement)


def _filters(query: UsageQuery) -> list[ColumnElement[bool]]:
    where = [_M.tenant == query.tenant, _M.at >= utc(query.start), _M.at < utc(query.end)]
    for column, wanted in (
        (_M.end_user, query.user),
        (_M.agent, query.agent),
        (_M.model, query.model),
        (_M.provider, query.provider),
    ):
        if wanted:
            where.append(column == wanted)
    return where
