"""One running task per conversation, across replicas, with the policy a request names.

A task of a conversation holds the conversation's slot while it runs
(`stores.conversation_slots`). A new task finds it free (it takes it), or busy:
then REJECT refuses the new task, ENQUEUE puts it in line (it waits, PENDING, for
the tasks before it to end), FOLLOW_UP too but only into an empty line (one follow-up
waits at most), and INTERRUPT cancels the running task and puts the new one first in
line. STEER starts no task in a busy conversation (`agent.scheduling.steers` steers the
busy one instead); one that reaches the gate anyway is refused as under REJECT. A task
lets go when it has ended and its turn is in the conversation, so the next task always
sees it.

A task whose process died between its end and letting go is let go by the
replica that takes it over. As a last resort, a task seen ended (or missing) for
longer than its own process could still be adding its turn (`stale_after`: a
lease, a takeover pass and the retries of a write) is finished by whoever it
blocks: its turn added if it held the conversation (once: appending is
idempotent), then let go. A task whose turn could not be added keeps the
conversation until it can be: a turn is never lost for the next one's sake.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import structlog

from agent.running.lifecycle import PERSIST_DELAYS
from core.errors import (
    ConversationBusyError,
    ConversationLineFullError,
    FollowUpQueuedError,
    TaskNotFoundError,
)
from records.conversations.model import BusyPolicy
from records.tasks import Task
from stores.conversation_slots.base import ConversationSlots
from stores.tasks.base import TaskStore

log = structlog.get_logger(__name__)

MAX_WAITING = 8
"""Tasks that may wait in one conversation's line (`ENQUEUE`) by default."""
MAX_SIGHTINGS = 10_000
STALE_MARGIN_SECONDS = 5.0

Cancel = Callable[[str, str, str], Awaitable[None]]
"""Cancels a task: (tenant, task id, reason)."""
Finish = Callable[[Task], Awaitable[bool]]
"""Adds an ended task's turn (if it held the conversation) and lets go; False when the
turn could not be added (the task keeps the conversation)."""


def stale_after(lease_seconds: float, takeover_interval_seconds: float) -> float:
    """How long a blocker may stay ended before whoever it blocks finishes it: by then its
    own process has given up retrying its end (`PERSIST_DELAYS`), or died, and the
    replica that took its lease over (a lease and a takeover pass) has not finished it."""
    return lease_seconds + takeover_interval_seconds + sum(PERSIST_DELAYS) + STALE_MARGIN_SECONDS


def slot_key(tenant: str, conversation_id: str) -> str:
    return f"{tenant}:{conversation_id}"


class BusyGate:
    """Admits the tasks of conversations one at a time."""

    def __init__(
        self,
        slots: ConversationSlots,
        tasks: TaskStore,
        *,
        stale_seconds: float = stale_after(30.0, 1.0),
        clock: Callable[[], float] = time.monotonic,
        max_waiting: int = MAX_WAITING,
    ) -> None:
        self._slots = slots
        self._tasks = tasks
        self._stale = stale_seconds
        self._clock = clock
        self._max_waiting = max_waiting
        self._ended: dict[str, float] = {}
        """Blockers seen ended or missing, and since when (by `clock`)."""
        self.finish: Finish | None = None
        """Finishes a stale blocker (`TaskMemory.finish`); None: it is only let go."""

    async def admit(
        self, tenant: str, conversation_id: str, task_id: str, policy: BusyPolicy, cancel: Cancel
    ) -> None:
        """Take the conversation for `task_id`, or act on its busy `policy`:
        ConversationBusyError (REJECT), in line (ENQUEUE), or the running task cancelled
        and in line first (INTERRUPT)."""
        key = slot_key(tenant, conversation_id)
        blocker = await self._claim(tenant, key, task_id)
        if not blocker:
            return
        if policy in (BusyPolicy.REJECT, BusyPolicy.STEER):
            raise ConversationBusyError(conversation_id, blocker)
        if policy is BusyPolicy.FOLLOW_UP:
            if not await self._slots.enqueue(key, task_id, first=False, limit=1):
                queued = await self.next_in_line(tenant, conversation_id)
                raise FollowUpQueuedError(conversation_id, blocker, queued)
            return
        first = policy is BusyPolicy.INTERRUPT
        if not await self._slots.enqueue(key, task_id, first=first, limit=self._max_waiting):
            raise ConversationLineFullError(conversation_id, blocker, self._max_waiting)
        if policy is BusyPolicy.INTERRUPT:
            holder = await self._slots.holder(key)
            if holder:
                reason = f"interrupted by task {task_id} of the same conversation"
                await cancel(tenant, holder, reason)

    async def _claim(self, tenant: str, key: str, task_id: str) -> str:
        """ "" when `task_id` took the conversation; else the task in its way."""
        while True:
            blocker = await self._slots.claim(key, task_id)
            if not blocker or not await self._let_go_if_stale(tenant, key, blocker):
                return blocker

    async def try_turn(self, task: Task) -> bool:
        """Whether `task` holds its conversation now (taking it when the tasks before it
        have ended; a stale one that blocks it is finished first)."""
        key = slot_key(task.tenant, task.conversation_id)
        while True:
            blocker = await self._slots.take_turn(key, task.task_id)
            if not blocker:
                return True
            waiting = await self._slots.waiting(key)
            first = waiting[0] if waiting and waiting[0] != task.task_id else blocker
            if not await self._let_go_if_stale(task.tenant, key, first):
                return False

    async def next_in_line(self, tenant: str, conversation_id: str) -> str:
        """The task first in the conversation's line, or ""."""
        waiting = await self._slots.waiting(slot_key(tenant, conversation_id))
        return waiting[0] if waiting else ""

    async def _let_go_if_stale(self, tenant: str, key: str, blocker: str) -> bool:
        """Finish `blocker` when it has been ended for long (its turn added, then let go);
        whether it no longer blocks."""
        stale, task = await self._gone(tenant, blocker)
        if not stale:
            return False
        log.warning("a task that ended still held its conversation", task_id=blocker)
        if task is not None and self.finish is not None:
            if not await self.finish(task):
                return False  # its turn could not be added: it keeps the conversation
        else:
            await self._slots.release(key, blocker)
        self._ended.pop(blocker, None)
        return True

    async def release(self, task: Task) -> None:
        """`task` has ended and its turn is in the conversation: the next may run."""
        await self._slots.release(slot_key(task.tenant, task.conversation_id), task.task_id)

    async def running(self, tenant: str, conversation_id: str) -> str:
        """The task running in the conversation now, or ""."""
        return await self._slots.holder(slot_key(tenant, conversation_id))

    async def busy(self, tenant: str, conversation_id: str) -> str:
        """A task running in or waiting for the conversation, or ""."""
        key = slot_key(tenant, conversation_id)
        for task_id in [await self._slots.holder(key), *await self._slots.waiting(key)]:
            if task_id and not (await self._gone(tenant, task_id))[0]:
                return task_id
        return ""

    async def _gone(self, tenant: str, task_id: str) -> tuple[bool, Task | None]:
        """Whether a blocker ended (or vanished) long enough ago that nobody else will
        finish it, and the task when it is stored. A task that just ended is not gone
        yet: its own process may still be adding its turn."""
        task: Task | None = None
        try:
            task = await self._tasks.get(tenant, task_id)
            ended = task.status.terminal
        except TaskNotFoundError:  # not stored yet (just admitted), or long expired
            ended = True
        if not ended:
            self._ended.pop(task_id, None)
            return False, task
        now = self._clock()
        if len(self._ended) > MAX_SIGHTINGS:
            self._ended.clear()
        since = self._ended.setdefault(task_id, now)
        return now - since > self._stale, task
