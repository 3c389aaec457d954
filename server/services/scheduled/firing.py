"""The firing loop every replica runs: claim the due schedules (a lease each), record
each due time's run, start its task, advance the schedule and let go of it.

Exactly once: a due time's run row is unique per `(schedule_id, due_at)`, so of the
replicas that reach one due time one records it. Its task starts through `Engine.start`
with an idempotency key derived from the schedule and the due time (`start_key`): a
replica killed after recording the run (left PENDING) or even after starting the task is
taken over once its lease ends, and the replica that takes over gets that same task back
instead of starting a second one.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Protocol

import structlog

from core.errors import AgentdError, TaskNotFoundError
from core.identity import CallContext, Principal
from records.requests import TaskRequest
from records.schedules.model import (
    Overlap,
    RunState,
    Schedule,
    ScheduleRun,
    ScheduleState,
    new_etag,
)
from records.schedules.timing import Clock, due_through, next_due, select
from records.tasks import Task
from stores.schedules.base import ScheduleStore

log = structlog.get_logger(__name__)

SCHEDULE_LABEL = "agentd.schedule"
"""The label every scheduled task carries: its schedule's id."""
REFUSING = ("PERMISSION_DENIED", "UNAUTHENTICATED")
"""The reasons of errors that make a run REFUSED (others make it FAILED)."""
ELSEWHERE = ("SHUTTING_DOWN", "RESOURCE_EXHAUSTED", "STORE_UNAVAILABLE")
"""The reasons of errors of this replica, not of the run: the run stays PENDING and the
schedule's lease lets another replica (or this one, later) start it."""
WALK_MARGIN = 60.0
"""Seconds before the catch-up window (or the on-time slack) where the walk over missed
due times starts (`due_through`)."""
BOOKKEEPING = (
    "next_due",
    "queued_due",
    "last_run",
    "current_task_id",
    "refusals",
    "state",
    "pause_reason",
)
"""What firing a schedule may change of it (a tick's, a trigger's run)."""
CARRY_TRIES = 5
"""Compare-and-set attempts of a tick's bookkeeping onto a schedule changed meanwhile."""


class Starter(Protocol):
    """What firing needs of the engine (`agent.engine.Engine` is one)."""

    async def start(self, request: TaskRequest, call: CallContext) -> Task: ...

    async def find(self, tenant: str, task_id: str) -> Task: ...

    async def cancel(self, tenant: str, task_id: str, reason: str) -> Task: ...


class Resolve(Protocol):
    async def __call__(self, principal: Principal) -> Principal: ...


@dataclass(frozen=True, slots=True)
class FiringSettings:
    lease_seconds: float = 15.0
    """How long a claimed schedule is held; a dead replica's is taken over after it."""
    tick_seconds: float = 0.5
    """How often a replica looks for due schedules."""
    max_refusals: int = 3
    """Refused runs in a row that pause a schedule."""
    batch: int = 100
    """Schedules claimed at a time."""

    @property
    def on_time_seconds(self) -> float:
        """A due time at most this late is on time (a takeover after a lease included):
        it runs whatever the catch-up policy."""
        return self.lease_seconds + 2 * self.tick_seconds + 1.0


def start_key(schedule_id: str, due: datetime) -> str:
    """The idempotency key of a due time's task: the same on every replica."""
    return f"schedule:{schedule_id}:{due.isoformat()}"


def task_request(schedule: Schedule, due: datetime) -> TaskRequest:
    """The task a due time starts: the schedule's, with `context.schedule` naming the
    schedule and the due time and the label `agentd.schedule`."""
    task = schedule.task
    marker = {"schedule_id": schedule.schedule_id, "due_time": due.isoformat()}
    return TaskRequest(
        goal=task.goal,
        context={**task.context, "schedule": marker},
        agent=task.agent,
        token_budget=task.token_budget,
        spend_limit=task.spend_limit,
        timeout_seconds=task.timeout_seconds,
        labels={**task.labels, SCHEDULE_LABEL: schedule.schedule_id},
        conversation_id=task.conversation_id,
        busy_policy=task.busy_policy,
        idempotency_key=start_key(schedule.schedule_id, due),
    )


@dataclass
class Firing:
    """Fires due schedules on one replica (`tick`, or `held` to run until cancelled)."""

    store: ScheduleStore
    engine: Starter
    resolve: Resolve
    clock: Clock
    replica: str
    settings: FiringSettings = FiringSettings()

    async def held(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:  # a store that is down: tried again next tick
                log.exception("firing schedules failed; retrying")
            await asyncio.sleep(self.settings.tick_seconds)

    async def tick(self) -> int:
        """Fire what is due now; how many schedules were claimed."""
        now = self.clock.now()
        until = now + timedelta(seconds=self.settings.lease_seconds)
        claimed = await self.store.claim(now, self.replica, until, self.settings.batch)
        for schedule in claimed:
            try:
                fired = await self.fire(schedule, now)
            except Exception:  # left to its lease: retried once it ends
                log.exception("firing a schedule failed", schedule_id=schedule.schedule_id)
                continue
            if not await self.store.save_claimed(fired, self.replica):
                await self._carry(schedule, fired, now)
        return len(claimed)

    async def _carry(self, claimed: Schedule, fired: Schedule, now: datetime) -> None:
        """What the tick decided (`fired`, from `claimed`) written onto the schedule as
        stored now (a user's change or a trigger's write came between): dropping it
        would leave a queued run that never starts, or a running task the next due time
        does not see. A timing the user changed meanwhile keeps its own next due time."""
        for _ in range(CARRY_TRIES):
            current = await self.store.get(claimed.tenant, claimed.schedule_id)
            if current is None:
                return  # deleted meanwhile
            merged = bookkept(claimed, fired, current)
            if current.timing != claimed.timing:
                merged = replace(merged, next_due=current.next_due)
            merged = woken(merged, now, self.settings.tick_seconds)
            if await self.store.replace(replace(merged, revision=new_etag()), current.revision):
                return
        log.warning("a tick's bookkeeping was not written", schedule_id=claimed.schedule_id)

    async def fire(self, schedule: Schedule, now: datetime) -> Schedule:
        """The schedule after handling what is due at `now` (not yet written)."""
        schedule = await self._dequeue(schedule, now)
        if schedule.next_due is not None and schedule.next_due <= now:
            span = max(schedule.catch_up_window_seconds, self.settings.on_time_seconds)
            due = due_through(schedule.timing, schedule.next_due, now, span + WALK_MARGIN)
            chosen = select(
                due,
                now,
                schedule.catch_up,
                schedule.catch_up_window_seconds,
                self.settings.on_time_seconds,
            )
            for missed in chosen.missed:
                reason = "missed while no replica fired it, outside the catch-up rule"
                await self._record(schedule, missed, now, RunState.MISSED, reason=reason)
            for time in chosen.run:
                if schedule.state is ScheduleState.ACTIVE:
                    schedule = await self.due_time(schedule, time, now)
            after = due[-1] if due else now
            schedule = replace(schedule, next_due=next_due(schedule.timing, after))
        return woken(schedule, now, self.settings.tick_seconds)

    async def _record(
        self, schedule: Schedule, due: datetime, now: datetime, state: RunState, reason: str = ""
    ) -> None:
        """Record a due time's run as `state`; one left PENDING (its start failed on a
        replica, and now it is too late) takes that state too."""
        run = ScheduleRun(
            schedule.schedule_id, schedule.tenant, due, state, reason=reason, created_at=now
        )
        if await self.store.add_run(run):
            return
        earlier = await self.store.get_run(schedule.schedule_id, due)
        if earlier is not None and earlier.state is RunState.PENDING:
            await self.store.update_run(replace(earlier, state=state, reason=reason))

    async def due_time(self, schedule: Schedule, due: datetime, now: datetime) -> Schedule:
        """Record `due`'s run (or take over its PENDING one) and start its task under the
        overlap policy; the schedule with what became of it (not yet written)."""
        run = ScheduleRun(
            schedule.schedule_id, schedule.tenant, due, RunState.PENDING, created_at=now
        )
        if not await self.store.add_run(run):
            earlier = await self.store.get_run(schedule.schedule_id, due)
            if earlier is None or earlier.state is not RunState.PENDING:
                return schedule  # handled already (by this replica or another)
            run = earlier  # a replica died firing it: its task id is the same
        previous = schedule.current_task_id
        if previous and await self._running(schedule.tenant, previous):
            if schedule.overlap is Overlap.SKIP or (
                schedule.overlap is Overlap.QUEUE_ONE and schedule.queued_due is not None
            ):
                why = f"the previous task {previous} still runs"
                return await self._settle(schedule, run, RunState.SKIPPED, reason=why)
            if schedule.overlap is Overlap.QUEUE_ONE:
                queued = await self._settle(schedule, run, RunState.QUEUED)
                return replace(queued, queued_due=due)
            why = f"cancelled by schedule {schedule.schedule_id}: its run due {due.isoformat()}"
            with contextlib.suppress(AgentdError):  # it ended meanwhile
                await self.engine.cancel(schedule.tenant, previous, why)
        return await self.start(schedule, run)

    async def _dequeue(self, schedule: Schedule, now: datetime) -> Schedule:
        """Start the QUEUED run once the task it waits behind has ended."""
        queued = schedule.queued_due
        if queued is None:
            return schedule
        previous = schedule.current_task_id
        if previous and await self._running(schedule.tenant, previous):
            return schedule
        run = await self.store.get_run(schedule.schedule_id, queued)
        schedule = replace(schedule, queued_due=None)
        if run is None:
            return schedule
        return await self.start(schedule, run)

    async def start(self, schedule: Schedule, run: ScheduleRun) -> Schedule:
        """Start `run`'s task as the schedule's principal, as it stands now; the schedule
        with the run recorded (a refusal counted; enough in a row pause it)."""
        try:
            principal = await self.resolve(schedule.principal)
            call = CallContext(principal=principal)
            task = await self.engine.start(task_request(schedule, run.due_at), call)
        except AgentdError as error:
            if error.reason in ELSEWHERE:
                raise
            if error.reason not in REFUSING:
                return await self._settle(schedule, run, RunState.FAILED, reason=error.message)
            return await self._refused(schedule, run, error.message)
        started = await self._settle(schedule, run, RunState.STARTED, task_id=task.task_id)
        return replace(started, refusals=0, current_task_id=task.task_id)

    async def _refused(self, schedule: Schedule, run: ScheduleRun, reason: str) -> Schedule:
        refused = await self._settle(schedule, run, RunState.REFUSED, reason=reason)
        refusals = schedule.refusals + 1
        if refusals < self.settings.max_refusals:
            return replace(refused, refusals=refusals)
        why = f"{refusals} runs in a row were refused; the last: {reason}"
        log.warning("schedule paused", schedule_id=schedule.schedule_id, reason=why)
        return replace(refused, refusals=refusals, state=ScheduleState.PAUSED, pause_reason=why)

    async def _settle(
        self,
        schedule: Schedule,
        run: ScheduleRun,
        state: RunState,
        reason: str = "",
        task_id: str = "",
    ) -> Schedule:
        settled = replace(run, state=state, reason=reason, task_id=task_id)
        await self.store.update_run(settled)
        return replace(schedule, last_run=settled)

    async def _running(self, tenant: str, task_id: str) -> bool:
        try:
            task = await self.engine.find(tenant, task_id)
        except TaskNotFoundError:
            return False
        return not task.status.terminal


def bookkept(before: Schedule, after: Schedule, current: Schedule) -> Schedule:
    """`current` with the bookkeeping fields firing changed from `before` to `after`."""
    changed = {f: getattr(after, f) for f in BOOKKEEPING if getattr(after, f) != getattr(before, f)}
    return replace(current, **changed)


def woken(schedule: Schedule, now: datetime, poll: float) -> Schedule:
    """When the schedule is next looked at: its next due time, sooner while a run is
    queued; a schedule with neither has ended."""
    wake = schedule.next_due
    if schedule.queued_due is not None:
        soon = now + timedelta(seconds=poll)
        wake = soon if wake is None else min(wake, soon)
    if wake is None and schedule.state is ScheduleState.ACTIVE:
        return replace(schedule, wake_at=None, state=ScheduleState.ENDED)
    return replace(schedule, wake_at=wake)
