"""Wait records in SQL (SQLite or PostgreSQL): a row per task and slot (`task_waits`,
migrations 0020 and 0025), shared by every replica.

Every change of state is one conditional UPDATE (the state it moves from, and for an
answer the tenant and kind, in its WHERE), so of replicas racing on one wait exactly one
changes it: on PostgreSQL the losers' UPDATEs wait for the winner's row lock, then find
the row no longer matches; on SQLite writes are serialised. `open` inserts with ON
CONFLICT DO NOTHING and reads the row back, so two openers of one slot share one row.

`pending` (an inbox) reads a tenant's open waits by `ix_task_waits_pending` (tenant, state,
then the list's order); a wait's roles are matched as whole JSON strings of its `roles`
(a position search: role names hold no quote, and case counts on SQLite too).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, func, literal, or_, select, update

from core.errors import ApprovalNotPendingError
from records.paging import Page, TimeKeyCursor
from records.waits import (
    PERSON_KINDS,
    Audience,
    Escalation,
    PendingQuery,
    Wait,
    WaitAction,
    WaitKind,
    WaitState,
    wait_cursor,
)
from stores.sql.database import Database, insert_of
from stores.sql.schema import task_waits
from stores.sql.times import aware

_T = task_waits.c
_OPEN = WaitState.OPEN.value
_ENDED = (WaitState.ANSWERED.value, WaitState.EXPIRED.value)


def _utc(value: datetime | None) -> datetime | None:
    """SQLite keeps a time's wall clock without its zone: every time stored is UTC."""
    return None if value is None else value.astimezone(UTC)


def _clean(text: str) -> str:
    """PostgreSQL text cannot hold NUL (the model's question may)."""
    return text.replace("\x00", "\ufffd")


def _row(wait: Wait) -> dict[str, Any]:
    return {
        "task_id": wait.task_id,
        "slot": wait.slot,
        "tenant": wait.tenant,
        "kind": wait.kind.value,
        "state": wait.state.value,
        "created_at": _utc(wait.created_at),
        "root_task_id": wait.root_task_id,
        "agent": wait.agent,
        "owner": wait.owner,
        "tool_name": _clean(wait.tool_name),
        "detail": _clean(wait.detail),
        "answer": None if wait.answer is None else json.dumps(wait.answer),
        "answered_by": wait.answered_by,
        "answered_at": _utc(wait.answered_at),
        "changes": wait.changes,
        "check_at": _utc(wait.check_at),
        "checks": wait.checks,
        **_moving(wait),
    }


def _moving(wait: Wait) -> dict[str, Any]:
    """The columns an escalation changes."""
    return {
        "roles": json.dumps(list(wait.roles)),
        "roles_by_rule": wait.roles_by_rule,
        "deadline_at": _utc(wait.deadline_at),
        "on_deadline": wait.on_deadline.value,
        "remind_at": _utc(wait.remind_at),
        "escalation_level": wait.escalation_level,
        "escalation": _step_json(wait.escalation),
    }


def _step_json(step: Escalation | None) -> str | None:
    if step is None:
        return None
    latest = _utc(step.latest)
    return json.dumps(
        {
            "roles": list(step.roles),
            "deadline_seconds": step.deadline_seconds,
            "on_deadline": step.on_deadline.value,
            "remind_before_seconds": step.remind_before_seconds,
            "latest": latest.isoformat() if latest is not None else None,
        }
    )


def _step(text: str | None) -> Escalation | None:
    if text is None:
        return None
    found = json.loads(text)
    latest = found.get("latest")
    return Escalation(
        roles=tuple(found["roles"]),
        deadline_seconds=float(found["deadline_seconds"]),
        on_deadline=WaitAction(found["on_deadline"]),
        remind_before_seconds=found.get("remind_before_seconds"),
        latest=datetime.fromisoformat(latest) if latest else None,
    )


def _wait(row: Any) -> Wait:
    return Wait(
        tenant=row.tenant,
        task_id=row.task_id,
        slot=row.slot,
        kind=WaitKind(row.kind),
        created_at=aware(row.created_at),
        root_task_id=row.root_task_id,
        agent=row.agent,
        owner=row.owner,
        roles=tuple(json.loads(row.roles)),
        tool_name=row.tool_name,
        detail=row.detail,
        deadline_at=aware(row.deadline_at),
        on_deadline=WaitAction(row.on_deadline),
        state=WaitState(row.state),
        answer=None if row.answer is None else json.loads(row.answer),
        answered_by=row.answered_by,
        answered_at=aware(row.answered_at),
        changes=row.changes,
        check_at=aware(row.check_at),
        checks=row.checks,
        roles_by_rule=bool(row.roles_by_rule),
        remind_at=aware(row.remind_at),
        escalation_level=row.escalation_level,
        escalation=_step(row.escalation),
    )


def _key(task_id: str, slot: str) -> ColumnElement[bool]:
    return and_(_T.task_id == task_id, _T.slot == slot)


def _kinds(kinds: frozenset[WaitKind]) -> list[str]:
    return sorted(k.value for k in kinds & PERSON_KINDS)


def _after(cursor: TimeKeyCursor) -> ColumnElement[bool]:
    """After `cursor` in the order (created_at, task_id, slot); the first term alone bounds
    an index range."""
    at, task_id = _utc(cursor.created_at), cursor.item_id
    later = or_(_T.task_id > task_id, and_(_T.task_id == task_id, _T.slot > cursor.key))
    return and_(_T.created_at >= at, or_(_T.created_at > at, and_(_T.created_at == at, later)))


class SqlWaitStore:
    """WaitStore on a database (owned by the caller); reads on its engine, writes through
    its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer
        self._dialect = database.dialect
        if self._dialect not in ("sqlite", "postgresql"):
            raise ValueError(f"waits need SQLite or PostgreSQL, not {self._dialect}")

    async def open(self, wait: Wait) -> tuple[Wait, bool]:
        # A statement of its own per call: the writer batches the rows of one insert
        # statement into an executemany that counts every row as inserted, and whether
        # this row was (not another caller's for the same slot) is the answer.
        statement = insert_of(self._dialect, task_waits).on_conflict_do_nothing(
            index_elements=[_T.task_id, _T.slot]
        )
        new = await self._writer.execute(statement, _row(wait)) == 1
        stored = await self.get(wait.task_id, wait.slot)
        return (stored if stored is not None else wait), new

    async def get(self, task_id: str, slot: str) -> Wait | None:
        async with self._engine.connect() as connection:
            row = (await connection.execute(select(task_waits).where(_key(task_id, slot)))).first()
        return _wait(row) if row is not None else None

    async def of_task(self, task_id: str) -> list[Wait]:
        query = select(task_waits).where(_T.task_id == task_id).order_by(_T.created_at, _T.slot)
        return await self._list(query)

    async def answer(
        self,
        tenant: str,
        task_id: str,
        slot: str,
        kind: WaitKind,
        answer: dict[str, Any],
        by: str,
        now: datetime,
        *,
        escalation_level: int | None = None,
    ) -> Wait:
        statement = (
            update(task_waits)
            .where(_key(task_id, slot), _T.tenant == tenant, _T.kind == kind.value)
            .where(_T.state == _OPEN)
            .values(
                state=WaitState.ANSWERED.value,
                answer=json.dumps(answer),
                answered_by=by,
                answered_at=_utc(now),
            )
        )
        if escalation_level is not None:
            statement = statement.where(_T.escalation_level == escalation_level)
        if await self._writer.execute(statement) != 1:
            raise ApprovalNotPendingError(task_id, slot)
        answered = await self.get(task_id, slot)
        if answered is None:  # its task ended (and forgot it) since
            raise ApprovalNotPendingError(task_id, slot)
        return answered

    async def expire(
        self, task_id: str, slot: str, now: datetime, answer: dict[str, Any] | None = None
    ) -> bool:
        statement = (
            update(task_waits)
            .where(_key(task_id, slot), _T.state == _OPEN)
            .values(
                state=WaitState.EXPIRED.value,
                answered_at=_utc(now),
                answer=None if answer is None else json.dumps(answer),
            )
        )
        return await self._writer.execute(statement) == 1

    async def escalate(self, moved: Wait) -> bool:
        statement = (
            update(task_waits)
            .where(_key(moved.task_id, moved.slot), _T.state == _OPEN)
            .where(_T.escalation_level == moved.escalation_level - 1)
            .values(**_moving(moved))
        )
        return await self._writer.execute(statement) == 1

    async def reminders(self, now: datetime, limit: int) -> list[Wait]:
        query = (
            select(task_waits)
            .where(_T.state == _OPEN, _T.remind_at <= _utc(now))
            .order_by(_T.remind_at, _T.task_id, _T.slot)
        )
        return await self._list(query, limit)

    async def remind(self, wait: Wait) -> bool:
        statement = (
            update(task_waits)
            .where(_key(wait.task_id, wait.slot), _T.state == _OPEN, _T.remind_at.is_not(None))
            .where(_T.escalation_level == wait.escalation_level)
            .values(remind_at=None)
        )
        return await self._writer.execute(statement) == 1

    async def close(self, task_id: str, slot: str) -> None:
        statement = (
            update(task_waits)
            .where(_key(task_id, slot), _T.state.in_(_ENDED))
            .values(state=WaitState.CLOSED.value)
        )
        await self._writer.execute(statement)

    async def nudge(self, task_id: str, slot: str) -> bool:
        statement = (
            update(task_waits)
            .where(_key(task_id, slot), _T.state == _OPEN)
            .values(changes=_T.changes + 1)
        )
        return await self._writer.execute(statement) == 1

    async def forget(self, task_id: str) -> None:
        await self._writer.execute(delete(task_waits).where(_T.task_id == task_id))

    async def tasks(self, limit: int) -> list[tuple[str, str]]:
        query = (
            select(_T.tenant, _T.task_id).distinct().order_by(_T.tenant, _T.task_id).limit(limit)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [(row.tenant, row.task_id) for row in rows]

    async def due(self, now: datetime, limit: int) -> list[Wait]:
        query = (
            select(task_waits)
            .where(_T.state == _OPEN, _T.deadline_at <= _utc(now))
            .order_by(_T.deadline_at, _T.task_id, _T.slot)
        )
        return await self._list(query, limit)

    async def unclaimed(self, before: datetime, limit: int) -> list[Wait]:
        query = (
            select(task_waits)
            .where(_T.state.in_(_ENDED), _T.answered_at <= _utc(before))
            .order_by(_T.answered_at, _T.task_id, _T.slot)
        )
        return await self._list(query, limit)

    async def polls(self, kind: WaitKind, now: datetime, limit: int) -> list[Wait]:
        at = _utc(now)
        next_look = func.coalesce(_T.check_at, literal(at, _T.check_at.type))
        query = (
            select(task_waits)
            .where(_T.kind == kind.value, _T.state == _OPEN)
            .where(or_(_T.check_at.is_(None), _T.check_at <= at))
            .order_by(next_look, _T.task_id, _T.slot)
        )
        return await self._list(query, limit)

    async def reschedule(self, wait: Wait, check_at: datetime) -> bool:
        statement = (
            update(task_waits)
            .where(_key(wait.task_id, wait.slot), _T.state == _OPEN, _T.checks == wait.checks)
            .values(check_at=_utc(check_at), checks=_T.checks + 1)
        )
        return await self._writer.execute(statement) == 1

    async def pending(self, query: PendingQuery) -> Page[Wait, TimeKeyCursor]:
        admitted = self._admitted(query.audience)
        if admitted is None or query.limit <= 0:
            return Page(())
        statement = select(task_waits).where(_T.tenant == query.tenant, _T.state == _OPEN, admitted)
        if query.agent_reference:
            statement = statement.where(_T.agent == query.agent_reference)
        elif query.agent:
            prefix = f"{query.agent}@"
            statement = statement.where(func.substr(_T.agent, 1, len(prefix)) == prefix)
        if query.root_task_id:
            statement = statement.where(_T.root_task_id == query.root_task_id)
        if query.after is not None:
            statement = statement.where(_after(query.after))
        statement = statement.order_by(_T.created_at, _T.task_id, _T.slot)
        found = await self._list(statement, query.limit + 1)
        return Page.cut(found, query.limit, wait_cursor)

    def _admitted(self, audience: Audience) -> ColumnElement[bool] | None:
        """`Audience.admits` in SQL; None when it admits no wait."""
        terms: list[ColumnElement[bool]] = []
        if anyone := _kinds(audience.anyone):
            terms.append(_T.kind.in_(anyone))
        by_role, roles = _kinds(audience.by_role), audience.matching_roles
        if by_role and roles:
            held = or_(*(self._holds(json.dumps(role)) for role in roles))
            terms.append(and_(_T.kind.in_(by_role), held))
        if (by_rule := _kinds(audience.by_rule)) and roles:
            held = or_(*(self._holds(json.dumps(role)) for role in roles))
            terms.append(and_(_T.kind.in_(by_rule), _T.roles_by_rule.is_(True), held))
        if (owned := _kinds(audience.owned)) and audience.owner:
            terms.append(and_(_T.kind.in_(owned), _T.owner == audience.owner))
        return or_(*terms) if terms else None

    def _holds(self, needle: str) -> ColumnElement[bool]:
        """Whether a wait's `roles` (JSON text) holds `needle` as it is."""
        if self._dialect == "postgresql":
            return func.strpos(_T.roles, needle) > 0
        return func.instr(_T.roles, needle) > 0

    async def _list(self, query: Any, limit: int | None = None) -> list[Wait]:
        if limit is not None:
            if limit <= 0:
                return []
            query = query.limit(limit)
        async with self._engine.connect() as connection:
            return [_wait(row) for row in await connection.execute(query)]
