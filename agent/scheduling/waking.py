"""The waking pass: what no event wakes a parked task for, looked at now and then.

Every replica runs it every takeover interval. Each step is a store operation that one
replica wins (`stores.waits`), so any number of replicas may run it at once:

- **reminders**: an open approval whose reminder is due is reminded of, once (told to
  `agent.notices`: REMINDED);
- **deadlines**: an open wait whose deadline passed expires; the task is woken to take
  the expiry in (`WaitAction.DENY`, `APPROVE`, whose answer says the deadline approved,
  and `FAIL`; the woken run announces it, `deadline_passed`) or, for `CANCEL`, cancelled
  (announced here); an approval whose rule escalates moves to its escalation's roles
  with their deadline instead (`deadline_passed` "escalated", appended to the parked
  task's log here). Each step of a wait for a person is told to `agent.notices`
  (TIMED_OUT with what the deadline did, ESCALATED), before the task is woken;
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
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import structlog

from agent.conversations.engine_hooks import TaskMemory
from agent.notices import NoNotices, Notices, tell_step
from agent.running.event_writer import redact_event
from agent.scheduling.parking import Parking
from agent.teams.remote import RemoteAgents
from core.errors import TaskAlreadyTerminalError, TaskNotFoundError
from records import events as ev
from records.inbox.steps import DEADLINE_ACTOR, ActionStep, ActionStepKind
from records.tasks import Task
from records.waits import TIMED_OUT, Wait, WaitAction, WaitKind, WaitState
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
        await self._reminders(now)
        await self._deadlines(now)
        await self._lost(now - timedelta(seconds=self._interval))
        if self._memory is not None:  # its turn came (its blocker ended, or died)?
            turn = self._memory.try_turn
            await self._polls(WaitKind.TURN, now, lambda task, _: turn(task))
        if self.remote is not None:  # the remote task a child waits for moved on?
            await self._polls(WaitKind.REMOTE, now, self.remote.check)

    async def _reminders(self, now: datetime) -> None:
        for wait in await self._waits.reminders(now, BATCH):
            if not await self._waits.remind(wait):
                continue  # sent by another replica, or the wait moved on
            log.info("a wait's reminder is due", task_id=wait.task_id, slot=wait.slot)
            reminded = replace(wait, remind_at=None)
            step = ActionStep(ActionStepKind.REMINDED, reminded, now, DEADLINE_ACTOR)
            await tell_step(self._notices, step)

    async def _deadlines(self, now: datetime) -> None:
        for wait in await self._waits.due(now, BATCH):
            if wait.escalates:
                await self._escalate(wait, now)
            else:
                await self._expire(wait, now)

    async def _escalate(self, wait: Wait, now: datetime) -> None:
        """Its rule's step: the wait moves to other roles with their deadline."""
        moved = wait.escalated(now)
        if not await self._waits.escalate(moved):
            return  # answered meanwhile, or moved by another replica
        log.info(
            "a wait passed its deadline and moved to other roles",
            task_id=wait.task_id,
            slot=wait.slot,
            roles=list(moved.roles),
        )
        outcome = "escalated"
        passed = ev.DeadlinePassed(
            wait.slot, wait.kind.value, wait.tool_name, outcome, moved.roles, moved.deadline_at
        )
        await self._announce(wait, passed)
        step = ActionStep(ActionStepKind.ESCALATED, moved, now, DEADLINE_ACTOR, outcome)
        await tell_step(self._notices, step)

    async def _expire(self, wait: Wait, now: datetime) -> None:
        outcome = wait.deadline_outcome
        answer = {"approved": True, TIMED_OUT: True} if outcome == "approved" else None
        if not await self._waits.expire(wait.task_id, wait.slot, now, answer):
            return  # answered meanwhile, or expired by another replica
        log.info(
            "a wait passed its deadline",
            task_id=wait.task_id,
            kind=wait.kind.value,
            action=wait.on_deadline.value,
        )
        expired = replace(wait, state=WaitState.EXPIRED, answer=answer, answered_at=now)
        if wait.kind.for_person:
            step = ActionStep(ActionStepKind.TIMED_OUT, expired, now, DEADLINE_ACTOR, outcome)
            await tell_step(self._notices, step)
        if wait.on_deadline is WaitAction.CANCEL:
            if wait.kind.for_person:  # no run of it takes this in: announced here
                kind, tool = wait.kind.value, wait.tool_name
                await self._announce(wait, ev.DeadlinePassed(wait.slot, kind, tool, outcome))
            why = f"its wait ({wait.kind.value} {wait.slot}) passed its deadline"
            await self._cancel(wait.tenant, wait.task_id, why)
        else:
            await self._parking.wake(wait.tenant, wait.task_id)

    async def _announce(self, wait: Wait, payload: ev.EventPayload) -> None:
        """`payload` appended to the log of the parked task `wait` is of (redacted, as a
        run's events are); nothing once it ended."""
        try:
            task = await self._tasks.get(wait.tenant, wait.task_id)
            await self._tasks.append_event(task.task_id, task.trace_id, redact_event(payload))
        except (TaskNotFoundError, TaskAlreadyTerminalError):
            return

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
