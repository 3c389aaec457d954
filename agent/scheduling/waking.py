"""The waking pass: what no event wakes a parked task for, looked at now and then.

Every replica runs it every takeover interval. Each step is a store operation that one
replica wins (`stores.waits`), so any number of replicas may run it at once:

- **deadlines**: an open wait whose deadline passed expires; the task is woken to take
  the expiry in (`WaitAction.DENY`, `FAIL`) or, for `CANCEL`, cancelled;
- **lost wakes**: a wait answered a while ago and not taken in (its waker died between
  its write and the wake) wakes its task again (a no-op for one not parked);
- **turns**: a task waiting for its turn in a conversation whose blocker died is let in
  (`agent.conversations.busy` finishes a stale blocker), with back-off;
- **remote agents**: a remote A2A task a local child waits for is looked at
  (`agent.teams.remote.RemoteAgents.check`), with back-off, and its child woken once it
  moved on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import structlog

from agent.conversations.engine_hooks import TaskMemory
from agent.notices import NoNotices, Notices
from agent.scheduling.parking import Parking
from agent.teams.remote import RemoteAgents
from core.errors import TaskNotFoundError
from records.tasks import Task
from records.waits import Wait, WaitAction, WaitKind
from stores.tasks.base import TaskStore

log = structlog.get_logger(__name__)

BATCH = 200
"""Waits handled per kind and pass."""
MAX_BACKOFF = 16
"""A poll waits at most this many intervals after the one before."""

Cancel = Callable[[str, str, str], Awaitable[None]]
"""Cancels a task: (tenant, task id, reason)."""
Check = Callable[[Task, Wait], Awaitable[bool]]
"""Looks at what a polled wait of a task waits for: whether it moved on (the task is then
woken)."""


class WakingPass:
    """Fires deadlines, repeats lost wakes, polls turns and remote agents."""

    def __init__(
        self,
        parking: Parking,
        tasks: TaskStore,
        cancel: Cancel,
        interval_seconds: float,
        memory: TaskMemory | None = None,
        notices: Notices | None = None,
    ) -> None:
        self._notices: Notices = notices or NoNotices()
        """Told of each deadline's step (`agent.notices`)."""
        self._parking = parking
        self._waits = parking.waits
        self._tasks = tasks
        self._cancel = cancel
        self._interval = interval_seconds
        self._memory = memory
        self.remote: RemoteAgents | None = None
        """Looks at the remote A2A tasks children wait for (`agent.teams.remote`)."""

    async def run(self) -> None:
        """Pass after pass, for ever (cancelled when the process stops)."""
        while True:
            try:
                await self.once(datetime.now(UTC))
            except Exception:
                log.exception("the waking pass failed; trying again")
            await asyncio.sleep(self._interval)

    async def once(self, now: datetime) -> None:
        await self._deadlines(now)
        await self._lost(now - timedelta(seconds=self._interval))
        if self._memory is not None:  # its turn came (its blocker ended, or died)?
            turn = self._memory.try_turn
            await self._polls(WaitKind.TURN, now, lambda task, _: turn(task))
        if self.remote is not None:  # the remote task a child waits for moved on?
            await self._polls(WaitKind.REMOTE, now, self.remote.check)

    async def _deadlines(self, now: datetime) -> None:
        for wait in await self._waits.due(now, BATCH):
            if not await self._waits.expire(wait.task_id, wait.slot, now):
                continue  # answered meanwhile, or expired by another replica
            log.info(
                "a wait passed its deadline",
                task_id=wait.task_id,
                kind=wait.kind.value,
                action=wait.on_deadline.value,
            )
            if wait.on_deadline is WaitAction.CANCEL:
                why = f"its wait ({wait.kind.value} {wait.slot}) passed its deadline"
                await self._cancel(wait.tenant, wait.task_id, why)
            else:
                await self._parking.wake(wait.tenant, wait.task_id)

    async def _lost(self, before: datetime) -> None:
        for wait in await self._waits.unclaimed(before, BATCH):
            await self._parking.wake(wait.tenant, wait.task_id)

    async def _polls(self, kind: WaitKind, now: datetime, check: Check) -> None:
        for wait in await self._waits.polls(kind, now, BATCH):
            later = now + timedelta(seconds=self._interval * min(2**wait.checks, MAX_BACKOFF))
            if not await self._waits.reschedule(wait, later):
                continue  # another replica looks at it
            try:
                task = await self._tasks.get(wait.tenant, wait.task_id)
                moved = await check(task, wait)
            except TaskNotFoundError:
                continue  # ended and let go: its waits are gone with it
            except Exception:
                log.exception("could not look at a wait", task_id=wait.task_id)
                continue
            if moved:
                await self._parking.nudge(wait.tenant, wait.task_id, wait.slot)
