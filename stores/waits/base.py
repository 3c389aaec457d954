"""Where parked tasks' waits are kept (`records.waits`), durably: they outlive the process
that parked the task, and any replica answers, expires or polls them.

Lifecycle and concurrency: the task opens a wait as it decides to wait (`open` is
idempotent: a task woken and waiting again finds the one it opened); whatever ends it
writes first (`answer`, `expire`: each atomic, exactly one of racing callers wins) and
wakes the task after; the woken task reads it (`get`, `of_task`) and `close`s it once it
has taken it in. `nudge` marks an open wait as worth another look. Waits are forgotten
when their task ends. `due`, `unclaimed` and `polls` feed the periodic pass that fires
deadlines, wakes tasks whose waker died between its write and the wake, and polls what
cannot notify (a remote agent); `reschedule` claims one poll for one replica. `reminders`
and `remind` send an approval's reminder once, `escalate` moves an approval to other
roles once (each atomic: exactly one of racing replicas wins). `pending`
lists a tenant's open waits for a person to whoever may answer them (an inbox), a page
at a time: what was answered meanwhile is on no later page, what was opened since may be.

`InMemoryWaitStore` serves one process (and the unit tests); `SqlWaitStore` (SQLite or
PostgreSQL) is what replicas share.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from records.paging import Page, TimeKeyCursor
from records.waits import PendingQuery, Wait, WaitKind


class WaitStore(Protocol):
    async def open(self, wait: Wait) -> tuple[Wait, bool]:
        """Keep `wait` unless its task already has a wait in its slot: the stored wait,
        and whether it is new."""
        ...

    async def get(self, task_id: str, slot: str) -> Wait | None:
        """The task's wait in `slot` (any state), or None."""
        ...

    async def of_task(self, task_id: str) -> list[Wait]:
        """Every wait of the task (any state), oldest first."""
        ...

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
        """Leave an answer: OPEN -> ANSWERED. ApprovalNotPendingError unless the task (of
        `tenant`) has an open wait of `kind` in `slot` (at `escalation_level`, if given: the
        roles checked are still its roles)."""
        ...

    async def expire(
        self, task_id: str, slot: str, now: datetime, answer: dict[str, Any] | None = None
    ) -> bool:
        """OPEN -> EXPIRED (its deadline passed), leaving `answer` if given (what the
        deadline decided, `records.waits.TIMED_OUT` in it); False when it was not open."""
        ...

    async def escalate(self, moved: Wait) -> bool:
        """An open wait moved to other roles (`Wait.escalated`): its roles, deadline, action,
        reminder, escalation level and step written as `moved` has them, only if it is open
        and still at the level below `moved`'s: True for exactly one of racing callers."""
        ...

    async def reminders(self, now: datetime, limit: int) -> list[Wait]:
        """Up to `limit` open waits whose reminder (`remind_at`) is due, earliest first."""
        ...

    async def remind(self, wait: Wait) -> bool:
        """Clear the due reminder of `wait` (its `remind_at`), only if it is open, has one and
        is at the same escalation level: True for exactly one of racing callers (the one
        that sends it)."""
        ...

    async def close(self, task_id: str, slot: str) -> None:
        """ANSWERED or EXPIRED -> CLOSED: the woken task took it in (its answer is kept)."""
        ...

    async def nudge(self, task_id: str, slot: str) -> bool:
        """An open wait's `changes` bumped (what it waits for moved on without ending);
        False when it is not open."""
        ...

    async def forget(self, task_id: str) -> None:
        """The task ended: its waits are gone."""
        ...

    async def tasks(self, limit: int) -> list[tuple[str, str]]:
        """Up to `limit` tasks that have waits, as (tenant, task id): tasks not ended (a
        task's waits are forgotten when it ends). A server whose live state dies with it
        ends these when it starts again."""
        ...

    async def due(self, now: datetime, limit: int) -> list[Wait]:
        """Up to `limit` open waits whose deadline is at or before `now`, earliest first."""
        ...

    async def unclaimed(self, before: datetime, limit: int) -> list[Wait]:
        """Up to `limit` waits answered or expired at or before `before` and not yet taken
        in (their task may not have been woken), oldest first."""
        ...

    async def polls(self, kind: WaitKind, now: datetime, limit: int) -> list[Wait]:
        """Up to `limit` open waits of `kind` whose next look (`check_at`) is due."""
        ...

    async def reschedule(self, wait: Wait, check_at: datetime) -> bool:
        """Set the next look of `wait` and count this one, only if nobody did since it was
        read (same `checks`): True for exactly one of the replicas polling it."""
        ...

    async def pending(self, query: PendingQuery) -> Page[Wait, TimeKeyCursor]:
        """A page of open waits for a person that `query` asks for (`PendingQuery.matches`),
        after `query.after`, oldest first (creation time, then task id, then slot); its
        cursor is set when more follow."""
        ...
