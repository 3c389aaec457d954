"""The inbox's history in SQL (SQLite or PostgreSQL): `action_history`, a row per step of a
wait for a person (migration 0026), shared by every replica.

`record` inserts the entries of one call in one transaction through the database's one
writer, each with ON CONFLICT DO NOTHING on its id: a step recorded again (by this replica
or another) leaves the row first written. `list` reads a page in the history's order by
the index its filter picks (the tenant's, a task's, a task tree's); the cursor's time alone
bounds an index range. Retention sweeps the table (`stores.retention.sql`).

Times are stored and compared in UTC: SQLite keeps a time's wall clock without its zone.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, or_, select

from records.inbox.history import ActionHistoryEntry, HistoryQuery, entry_cursor
from records.inbox.steps import ActionStepKind
from records.paging import Page, TimeKeyCursor
from records.waits import WaitKind
from stores.sql.database import Database, insert_of
from stores.sql.group_commit import check_row
from stores.sql.schema import action_history
from stores.sql.times import aware

_H = action_history.c


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC)


def _clean(text: str) -> str:
    """PostgreSQL text cannot hold NUL (a tool's or an agent's name could)."""
    return text.replace("\x00", "\ufffd")


def _row(entry: ActionHistoryEntry) -> dict[str, Any]:
    return {
        "entry_id": entry.entry_id,
        "tenant": entry.tenant,
        "task_id": entry.task_id,
        "root_task_id": entry.root_task_id,
        "request_id": _clean(entry.request_id),
        "wait_kind": entry.wait_kind.value,
        "step": entry.step.value,
        "time": _utc(entry.time),
        "tool_name": _clean(entry.tool_name),
        "agent": _clean(entry.agent),
        "actor": _clean(entry.actor),
        "outcome": _clean(entry.outcome),
        "roles": json.dumps(list(entry.roles)),
        "deadline_at": _utc(entry.deadline_at),
    }


def _entry(row: Any) -> ActionHistoryEntry:
    return ActionHistoryEntry(
        entry_id=row.entry_id,
        tenant=row.tenant,
        task_id=row.task_id,
        root_task_id=row.root_task_id,
        request_id=row.request_id,
        wait_kind=WaitKind(row.wait_kind),
        step=ActionStepKind(row.step),
        time=aware(row.time),
        tool_name=row.tool_name,
        agent=row.agent,
        actor=row.actor,
        outcome=row.outcome,
        roles=tuple(json.loads(row.roles)),
        deadline_at=aware(row.deadline_at),
    )


def _after(cursor: TimeKeyCursor) -> ColumnElement[bool]:
    """After `cursor` in the order (time, task_id, entry_id); the first term alone bounds
    an index range."""
    at, task_id = _utc(cursor.created_at), cursor.item_id
    later = or_(_H.task_id > task_id, and_(_H.task_id == task_id, _H.entry_id > cursor.key))
    return and_(_H.time >= at, or_(_H.time > at, and_(_H.time == at, later)))


class SqlActionHistory:
    """ActionHistoryStore on a database (owned by the caller); reads on its engine, writes
    through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer
        dialect = database.dialect
        if dialect not in ("sqlite", "postgresql"):
            raise ValueError(f"the inbox's history needs SQLite or PostgreSQL, not {dialect}")
        self._insert = insert_of(dialect, action_history).on_conflict_do_nothing(
            index_elements=[_H.entry_id]
        )

    async def record(self, entries: Sequence[ActionHistoryEntry]) -> None:
        rows = [_row(entry) for entry in entries]
        for row in rows:
            check_row(action_history, row)  # RowRejectedError before anything is written
        if rows:
            await self._writer.execute_together([(self._insert, row) for row in rows])

    async def list(self, query: HistoryQuery) -> Page[ActionHistoryEntry, TimeKeyCursor]:
        if query.limit <= 0:
            return Page(())
        statement = select(action_history).where(_H.tenant == query.tenant)
        if query.task_id:
            statement = statement.where(_H.task_id == query.task_id)
        if query.root_task_id:
            statement = statement.where(_H.root_task_id == query.root_task_id)
        if query.after is not None:
            statement = statement.where(_after(query.after))
        statement = statement.order_by(_H.time, _H.task_id, _H.entry_id).limit(query.limit + 1)
        async with self._engine.connect() as connection:
            found = [_entry(row) for row in await connection.execute(statement)]
        return Page.cut(found, query.limit, entry_cursor)
