"""Who is told of a task's status changes and of the steps of its waits for a person
(`records.inbox.steps`): the inbox's history and the webhooks' outbox, each a `Notices`.

Each is called where the change is observed, and awaited: what it writes is durable
before the change goes on (a status change before the task's state is saved, a step
before the task is woken), so a process that dies between the two repeats the change
and the notice (whose writer drops a repeat) rather than losing it. One that fails
raises; the caller decides (a status change is retried like the task's own writes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import structlog

from records.inbox.steps import ActionStep
from records.tasks import Task, TaskStatus

log = structlog.get_logger(__name__)


class Notices(Protocol):
    async def task_status(
        self, task: Task, status: TaskStatus, previous: TaskStatus | None
    ) -> None:
        """`task` moves from `previous` to `status` (it carries the new status already)."""
        ...

    async def action(self, step: ActionStep) -> None:
        """A step of a wait for a person."""
        ...


class NoNotices:
    """Nobody is told."""

    async def task_status(
        self, task: Task, status: TaskStatus, previous: TaskStatus | None
    ) -> None:
        return None

    async def action(self, step: ActionStep) -> None:
        return None


class AllNotices:
    """Tells each of several, in order."""

    def __init__(self, each: Sequence[Notices]) -> None:
        self._each = tuple(each)

    async def task_status(
        self, task: Task, status: TaskStatus, previous: TaskStatus | None
    ) -> None:
        for notices in self._each:
            await notices.task_status(task, status, previous)

    async def action(self, step: ActionStep) -> None:
        for notices in self._each:
            await notices.action(step)


async def tell_step(notices: Notices, step: ActionStep) -> None:
    """Tell `notices` of a wait's step taken already (its store operation, which no one
    repeats, was won): one that fails is logged, and the step goes on (the task is woken,
    the answer stands) rather than being lost with it."""
    try:
        await notices.action(step)
    except Exception:
        log.exception(
            "could not tell of a wait's step",
            task_id=step.wait.task_id,
            slot=step.wait.slot,
            step=step.kind.value,
        )
