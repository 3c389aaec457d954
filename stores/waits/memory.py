"""Wait records in this process (one server with the in-process stores, and unit tests)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from core.errors import ApprovalNotPendingError
from records.paging import Page, TimeKeyCursor
from records.waits import PendingQuery, Wait, WaitKind, WaitState, wait_cursor, wait_order


class InMemoryWaitStore:
    """Dicts keyed by task and slot; every method runs without awaiting (atomic)."""

    def __init__(self) -> None:
        self._waits: dict[str, dict[str, Wait]] = {}

    async def open(self, wait: Wait) -> tuple[Wait, bool]:
        slots = self._waits.setdefault(wait.task_id, {})
        found = slots.get(wait.slot)
        if found is not None:
            return found, False
        slots[wait.slot] = wait
        return wait, True

    async def get(self, task_id: str, slot: str) -> Wait | None:
        return self._waits.get(task_id, {}).get(slot)

    async def of_task(self, task_id: str) -> list[Wait]:
        return sorted(self._waits.get(task_id, {}).values(), key=lambda w: w.created_at)

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
        found = self._waits.get(task_id, {}).get(slot)
        if (
            found is None
            or found.tenant != tenant
            or found.kind is not kind
            or found.state is not WaitState.OPEN
            or (escalation_level is not None and found.escalation_level != escalation_level)
        ):
            raise ApprovalNotPendingError(task_id, slot)
        answered = replace(
            found, state=WaitState.ANSWERED, answer=dict(answer), answered_by=by, answered_at=now
        )
        self._waits[task_id][slot] = answered
        return answered

    def _move(self, task_id: str, slot: str, old: set[WaitState], **changes: Any) -> bool:
        found = self._waits.get(task_id, {}).get(slot)
        if found is None or found.state not in old:
            return False
        self._waits[task_id][slot] = replace(found, **changes)
        return True

    async def expire(
        self, task_id: str, slot: str, now: datetime, answer: dict[str, Any] | None = None
    ) -> bool:
        left = None if answer is None else dict(answer)
        return self._move(
            task_id, slot, {WaitState.OPEN}, state=WaitState.EXPIRED, answered_at=now, answer=left
        )

    async def escalate(self, moved: Wait) -> bool:
        found = self._waits.get(moved.task_id, {}).get(moved.slot)
        if (
            found is None
            or found.state is not WaitState.OPEN
            or found.escalation_level != moved.escalation_level - 1
        ):
            return False
        self._waits[moved.task_id][moved.slot] = replace(
            found,
            roles=moved.roles,
            roles_by_rule=moved.roles_by_rule,
            deadline_at=moved.deadline_at,
            on_deadline=moved.on_deadline,
            remind_at=moved.remind_at,
            escalation_level=moved.escalation_level,
            escalation=moved.escalation,
        )
        return True

    async def reminders(self, now: datetime, limit: int) -> list[Wait]:
        found = [
            w
            for w in self._all()
            if w.state is WaitState.OPEN and w.remind_at is not None and w.remind_at <= now
        ]
        return sorted(found, key=lambda w: (w.remind_at or now, w.task_id, w.slot))[:limit]

    async def remind(self, wait: Wait) -> bool:
        found = self._waits.get(wait.task_id, {}).get(wait.slot)
        if (
            found is None
            or found.state is not WaitState.OPEN
            or found.remind_at is None
            or found.escalation_level != wait.escalation_level
        ):
            return False
        self._waits[wait.task_id][wait.slot] = replace(found, remind_at=None)
        return True

    async def close(self, task_id: str, slot: str) -> None:
        self._move(task_id, slot, {WaitState.ANSWERED, WaitState.EXPIRED}, state=WaitState.CLOSED)

    async def nudge(self, task_id: str, slot: str) -> bool:
        found = self._waits.get(task_id, {}).get(slot)
        if found is None or found.state is not WaitState.OPEN:
            return False
        self._waits[task_id][slot] = replace(found, changes=found.changes + 1)
        return True

    async def forget(self, task_id: str) -> None:
        self._waits.pop(task_id, None)

    async def tasks(self, limit: int) -> list[tuple[str, str]]:
        found = [(slots[next(iter(slots))].tenant, t) for t, slots in self._waits.items() if slots]
        return sorted(found)[:limit]

    def _all(self) -> list[Wait]:
        return [w for slots in self._waits.values() for w in slots.values()]

    async def due(self, now: datetime, limit: int) -> list[Wait]:
        found = [
            w
            for w in self._all()
            if w.state is WaitState.OPEN and w.deadline_at is not None and w.deadline_at <= now
        ]
        return sorted(found, key=lambda w: (w.deadline_at or now, w.task_id, w.slot))[:limit]

    async def unclaimed(self, before: datetime, limit: int) -> list[Wait]:
        ended = (WaitState.ANSWERED, WaitState.EXPIRED)
        found = [
            w
            for w in self._all()
            if w.state in ended and w.answered_at is not None and w.answered_at <= before
        ]
        return sorted(found, key=lambda w: (w.answered_at or before, w.task_id, w.slot))[:limit]

    async def polls(self, kind: WaitKind, now: datetime, limit: int) -> list[Wait]:
        found = [
            w
            for w in self._all()
            if w.kind is kind
            and w.state is WaitState.OPEN
            and (w.check_at is None or w.check_at <= now)
        ]
        return sorted(found, key=lambda w: (w.check_at or now, w.task_id, w.slot))[:limit]

    async def reschedule(self, wait: Wait, check_at: datetime) -> bool:
        found = self._waits.get(wait.task_id, {}).get(wait.slot)
        if found is None or found.state is not WaitState.OPEN or found.checks != wait.checks:
            return False
        self._waits[wait.task_id][wait.slot] = replace(
            found, check_at=check_at, checks=found.checks + 1
        )
        return True

    async def pending(self, query: PendingQuery) -> Page[Wait, TimeKeyCursor]:
        if query.limit <= 0:
            return Page(())
        after = query.after
        start = (after.created_at, after.item_id, after.key) if after is not None else None
        found = sorted(
            (
                w
                for w in self._all()
                if query.matches(w) and (start is None or wait_order(w) > start)
            ),
            key=wait_order,
        )
        return Page.cut(found, query.limit, wait_cursor)
