"""Traces in SQL (SQLite or PostgreSQL): `stores.traces.tables`, migration 0028.

A write is one transaction through the database's one writer (group commit): the head
kept if new, its counts moved by what of the batch is not kept yet, then the messages
and entries inserted, each kept once (ON CONFLICT DO NOTHING), so a retried write
changes nothing. Reads go through the engine's own connections.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Integer,
    bindparam,
    case,
    delete,
    func,
    null,
    or_,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.sql.elements import BindParameter

from records.tasks import utcnow
from records.traces.codec import detail_from, detail_json, message_json, message_of, numbered
from records.traces.model import (
    ModelCallTrace,
    TracedMessage,
    TraceEntry,
    TraceHead,
    TraceOwner,
    TracePage,
)
from records.traces.size import entry_bytes, message_bytes
from stores.sql.database import Database, insert_of
from stores.sql.group_commit import Params
from stores.sql.times import aware
from stores.traces.numbers import MessageNumbers
from stores.traces.tables import trace_entries, trace_heads, trace_messages

_H = trace_heads.c
_E = trace_entries.c
_M = trace_messages.c
CHUNK = 200
"""Rows per INSERT statement (well under either database's limit of parameters)."""


class SqlTraceStore:
    """TraceStore on a database (owned by the caller). Also `Expiring` (retention):
    `sweep` deletes the oldest tasks' traces."""

    name = "task traces"

    def __init__(self, database: Database, clock: Callable[[], datetime] = utcnow) -> None:
        self._clock = clock
        """When a write is (a trace not written since the retention is swept)."""
        self._engine = database.engine
        self._writer = database.writer
        dialect = database.dialect
        if dialect not in ("sqlite", "postgresql"):
            raise ValueError(f"traces need SQLite or PostgreSQL, not {dialect}")
        self._dialect = dialect
        self._head = insert_of(dialect, trace_heads).on_conflict_do_nothing(
            index_elements=[_H.task_id]
        )
        self._numbers = MessageNumbers(database.engine)
        # Built once: each write binds its values (compiled once, from SQLAlchemy's cache).
        self._count = self._counting()
        self._message = _message_insert(dialect)
        self._entry = insert_of(dialect, trace_entries).on_conflict_do_nothing(
            index_elements=[_E.task_id, _E.entry_id]
        )

    async def write(
        self,
        owner: TraceOwner,
        entries: Sequence[TraceEntry],
        messages: Sequence[TracedMessage],
        *,
        cut: bool = False,
        fresh: bool = False,
    ) -> None:
        task_id = owner.task_id
        firsts = _first_namers(entries)
        unique = {m.message_id: m for m in messages}
        order = sorted(unique, key=lambda i: firsts.get(i, "~"))  # as first named
        numbers = await self._numbers.numbered(task_id, order, fresh)
        rows = {e.entry_id: _entry_row(e, numbers) for e in entries}
        least = min(rows, default="")
        kept = {
            i: _message_row(task_id, unique[i], firsts.get(i, least), numbers[i]) for i in order
        }
        counts = {
            "b_task_id": task_id,
            "ids": list(rows),
            "names": list(kept),
            "b_n": len(rows),
            "b_added": sum(r["bytes"] for r in (*rows.values(), *kept.values())),
            "b_cut": cut,
            "b_written": self._clock().astimezone(UTC),
        }
        steps: list[tuple[UpdateBase, Params]] = [
            (self._head, _head_row(owner, self._clock())),
            (self._count, counts),
        ]
        if kept:  # each table's rows in one executemany
            steps.append((self._message, list(kept.values())))
        if rows:
            steps.append((self._entry, list(rows.values())))
        try:
            await self._writer.execute_together(steps)
        except BaseException:  # the numbers taken may be another replica's: read again
            self._numbers.forget([task_id])
            raise

    def _counting(self) -> UpdateBase:
        """The head's counts moved by the rows of a batch not kept yet (run before they
        are inserted, in the same transaction); built once, its values bound per write."""
        here = _E.task_id == bindparam("b_task_id")
        ids: BindParameter[str] = bindparam("ids", expanding=True)
        names: BindParameter[str] = bindparam("names", expanding=True)
        known = select(func.count()).where(here, _E.entry_id.in_(ids)).scalar_subquery()
        entry_weight = select(func.coalesce(func.sum(_E.bytes), 0)).where(
            here, _E.entry_id.in_(ids)
        )
        message_weight = select(func.coalesce(func.sum(_M.bytes), 0)).where(
            _M.task_id == bindparam("b_task_id"), _M.message_id.in_(names)
        )
        return (
            update(trace_heads)
            .where(_H.task_id == bindparam("b_task_id"))
            .values(
                entries=_H.entries + bindparam("b_n", type_=Integer) - known,
                bytes=_H.bytes
                + bindparam("b_added", type_=BigInteger)
                - entry_weight.scalar_subquery()
                - message_weight.scalar_subquery(),
                cut=or_(_H.cut, bindparam("b_cut", type_=Boolean)),
                written=bindparam("b_written", type_=DateTime(timezone=True)),
            )
        )

    async def head(self, task_id: str) -> TraceHead | None:
        async with self._engine.connect() as connection:
            row = (
                await connection.execute(select(trace_heads).where(_H.task_id == task_id))
            ).first()
        return None if row is None else _head(row)

    async def page(self, task_id: str, after: str, limit: int) -> TracePage:
        query = (
            select(_E.entry_id, _E.kind, _E.step_id, _E.time, _E.cut, _E.body)
            .where(_E.task_id == task_id, _E.entry_id > after)
            .order_by(_E.entry_id)
            .limit(limit + 1)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
            more = len(rows) > limit
            rows = rows[:limit]
            if not rows:
                return TracePage((), (), "")
            last = rows[-1].entry_id
            named = select(_M.message_id, _M.body).where(
                _M.task_id == task_id, _M.first_entry_id > after, _M.first_entry_id <= last
            )
            found = {r.message_id: r.body for r in (await connection.execute(named)).all()}
            bodies = [json.loads(r.body) for r in rows]
            ids = await _ids_named(connection, task_id, bodies)
        entries = tuple(
            TraceEntry(
                task_id, r.entry_id, r.step_id, aware(r.time), detail_from(r.kind, b, ids), r.cut
            )
            for r, b in zip(rows, bodies, strict=True)
        )
        order: dict[str, None] = {}
        for entry in entries:  # in the order the page's calls name them
            if isinstance(entry.detail, ModelCallTrace):
                order.update(dict.fromkeys(i for i in entry.detail.message_ids if i in found))
        messages = tuple(message_of(i, found[i]) for i in order)
        return TracePage(entries, messages, last if more else "")

    async def children(self, task_id: str) -> list[str]:
        query = select(_H.task_id).where(_H.parent_task_id == task_id).order_by(_H.started)
        async with self._engine.connect() as connection:
            return list((await connection.scalars(query)).all())

    async def sweep(self, before: datetime, limit: int) -> int:
        """Delete the traces of at most `limit` tasks not written since `before`, oldest
        first (two replicas sweeping at once delete the same traces once)."""
        when = before.astimezone(UTC)
        picked = select(_H.task_id).where(_H.written < when).order_by(_H.written).limit(limit)
        async with self._engine.connect() as connection:
            ids = list((await connection.scalars(picked)).all())
        return await self._delete(ids)

    async def forget_user(self, tenant: str, user: str) -> int:
        query = select(_H.task_id).where(_H.tenant == tenant, _H.user == user)
        async with self._engine.connect() as connection:
            ids = list((await connection.scalars(query)).all())
        return await self._delete(ids)

    async def _delete(self, ids: list[str]) -> int:
        """Delete the traces of `ids` (entries, messages, then heads) in one transaction;
        how many heads went."""
        if not ids:
            return 0
        self._numbers.forget(ids)
        gone = 0
        for i in range(0, len(ids), CHUNK):
            chunk = ids[i : i + CHUNK]
            gone += await self._writer.execute_together(
                [
                    (delete(trace_entries).where(_E.task_id.in_(chunk)), None),
                    (delete(trace_messages).where(_M.task_id.in_(chunk)), None),
                    (delete(trace_heads).where(_H.task_id.in_(chunk)), None),
                ]
            )
        return gone


async def _ids_named(
    connection: AsyncConnection, task_id: str, bodies: list[dict[str, Any]]
) -> dict[int, str]:
    """The message ids, by number, that model calls' `bodies` name in runs."""
    runs = [r for body in bodies for r in numbered(body)]
    if not runs:
        return {}
    low, high = min(r[0] for r in runs), max(r[1] for r in runs)
    query = select(_M.number, _M.message_id).where(
        _M.task_id == task_id, _M.number >= low, _M.number <= high
    )
    return {int(r.number): r.message_id for r in (await connection.execute(query)).all()}


def _first_namers(entries: Sequence[TraceEntry]) -> dict[str, str]:
    """Each message id the entries name, and the first entry (by id) that names it."""
    firsts: dict[str, str] = {}
    for entry in sorted(entries, key=lambda e: e.entry_id):
        if isinstance(entry.detail, ModelCallTrace):
            for name in entry.detail.message_ids:
                firsts.setdefault(name, entry.entry_id)
    return firsts


def _head_row(owner: TraceOwner, written: datetime) -> dict[str, Any]:
    return {
        "task_id": owner.task_id,
        "tenant": owner.tenant,
        "user": owner.user,
        "root_task_id": owner.root_task_id,
        "parent_task_id": owner.parent_task_id,
        "agent": owner.agent,
        "task": owner.task,
        "started": owner.started.astimezone(UTC),
        "entries": 0,
        "bytes": 0,
        "cut": False,
        "written": written.astimezone(UTC),
    }


def _entry_row(entry: TraceEntry, numbers: dict[str, int]) -> dict[str, Any]:
    return {
        "task_id": entry.task_id,
        "entry_id": entry.entry_id,
        "kind": entry.kind.value,
        "step_id": entry.step_id,
        "time": entry.time.astimezone(UTC),
        "cut": entry.cut,
        "bytes": entry_bytes(entry),
        "body": detail_json(entry.detail, numbers),
    }


def _message_row(task_id: str, message: TracedMessage, first: str, number: int) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "message_id": message.message_id,
        "first_entry_id": first,
        "number": number,
        "bytes": message_bytes(message),
        "body": message_json(message),
    }


def _head(row: Any) -> TraceHead:
    owner = TraceOwner(
        task_id=row.task_id,
        tenant=row.tenant,
        user=row.user,
        root_task_id=row.root_task_id,
        parent_task_id=row.parent_task_id,
        agent=row.agent,
        task=row.task,
        started=aware(row.started),
    )
    return TraceHead(owner, int(row.entries), int(row.bytes), bool(row.cut))


def _message_insert(dialect: str) -> Any:
    """The messages' INSERT: a message already kept is kept as it is, if under the same
    number; under another (this writer's numbers were stale: another replica wrote the
    task since) the row's number would become NULL, which its column refuses: the write
    fails whole, the store forgets the task's numbers and the retry reads them again."""
    statement = insert_of(dialect, trace_messages)
    same = case((_M.number == statement.excluded.number, _M.number), else_=null())
    return statement.on_conflict_do_update(
        index_elements=[_M.task_id, _M.message_id], set_={"number": same}
    )
