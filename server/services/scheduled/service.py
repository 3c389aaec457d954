"""ScheduleService's logic: create, read, change (on the etag read), pause, resume,
delete and trigger a tenant's schedules, and list their runs with their tasks' status.
Any caller of a tenant may read its schedules; changing them needs a role of
AGENTD_SCHEDULE_ADMIN_ROLES (`Action.MANAGE_SCHEDULES`)."""

from __future__ import annotations

import contextlib
import hashlib
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from core.errors import (
    EtagMismatchError,
    FieldViolation,
    InvalidArgumentError,
    ScheduleNotActiveError,
    ScheduleNotFoundError,
    TaskNotFoundError,
)
from core.identity import CallContext, Principal
from core.roles import Action, RoleTable
from records.schedules.model import (
    RunState,
    Schedule,
    ScheduleRun,
    ScheduleState,
    TimingKind,
    new_etag,
)
from records.schedules.timing import Clock, next_due
from records.tasks import TaskStatus
from server.services.scheduled.checks import check
from server.services.scheduled.firing import Firing, bookkept, woken
from stores.schedules.base import ScheduleExistsError, ScheduleStore

FindAgent = Callable[[str, str], Awaitable[object]]
"""Raises AgentNotFoundError (as StartTask would) when the tenant has no such agent."""
FIELDS = {
    "display_name": "display_name",
    "timing": "timing",
    "task": "task",
    "overlap": "overlap",
    "catch_up": "catch_up",
    "catch_up_window": "catch_up_window_seconds",
    "labels": "labels",
}
"""What UpdateSchedule's mask may name, and the record's attribute of each."""
WRITE_TRIES = 5
"""Compare-and-set attempts of one change before it gives up (EtagMismatchError)."""
Change = Callable[[Schedule], Awaitable[Schedule]]
"""A change to a schedule, applied to it as stored now."""


def _schedule_id(principal: Principal, request_id: str) -> str:
    if not request_id:
        return f"sch_{secrets.token_hex(8)}"
    scope = f"{principal.tenant}\n{principal.id}\n{request_id}".encode()
    return f"sch_{hashlib.sha256(scope).hexdigest()[:16]}"


def scheduled(schedule: Schedule, now: datetime) -> Schedule:
    """`schedule` with its next due time after `now` (an interval without a start counts
    from now: its first run one interval on) and when to look at it."""
    timing = schedule.timing
    if timing.kind is TimingKind.INTERVAL and timing.start is None:
        start = now + timedelta(seconds=timing.interval_seconds)
        timing = replace(timing, start=start)
    due = next_due(timing, now)
    state = schedule.state
    if due is None and state is ScheduleState.ACTIVE:
        state = ScheduleState.ENDED
    return replace(schedule, timing=timing, next_due=due, wake_at=due, state=state)


@dataclass(frozen=True, slots=True)
class RunView:
    """A run with its task's status now (None without a task, or once it is forgotten)."""

    run: ScheduleRun
    task_status: TaskStatus | None


@dataclass
class ScheduleService:
    store: ScheduleStore
    firing: Firing
    find_agent: FindAgent
    roles: RoleTable
    clock: Clock
    min_interval_seconds: float = 60.0
    pending_trigger_seconds: float = 3600.0
    """How long after TriggerSchedule recorded its run a retry may still start it (its
    first start failed on its replica); later, the run is FAILED with the reason. The
    wiring sets the task timeout: below the engine's idempotency key's lifetime (the
    task timeout plus retention), so a retry never outlives the key that makes it start
    the same task, and a run asked for now does not start hours late."""

    def _manage(self, principal: Principal) -> None:
        self.roles.require(principal.roles, Action.MANAGE_SCHEDULES)

    async def _check(self, schedule: Schedule, now: datetime) -> None:
        check(schedule, now, self.min_interval_seconds)
        if schedule.task.agent:
            await self.find_agent(schedule.principal.tenant, schedule.task.agent)

    async def create(self, call: CallContext, draft: Schedule, request_id: str = "") -> Schedule:
        """A new schedule run as the caller; a retry with the same `request_id` gets the
        schedule the first made (its id derived from the caller and the request id)."""
        principal = call.principal
        self._manage(principal)
        schedule_id = _schedule_id(principal, request_id)
        if request_id:
            earlier = await self.store.get(principal.tenant, schedule_id)
            if earlier is not None:
                return earlier
        now = self.clock.now()
        schedule = replace(
            draft,
            schedule_id=schedule_id,
            tenant=principal.tenant,
            principal=principal,
            state=ScheduleState.ACTIVE,
            etag=new_etag(),
            revision=new_etag(),
            created_at=now,
            updated_at=now,
        )
        await self._check(schedule, now)
        schedule = scheduled(schedule, now)
        try:
            await self.store.create(schedule)
        except ScheduleExistsError:  # a retry raced the first: that one's
            return await self.get(principal, schedule_id)
        return schedule

    async def get(self, principal: Principal, schedule_id: str) -> Schedule:
        found = await self.store.get(principal.tenant, schedule_id)
        if found is None:
            raise ScheduleNotFoundError(schedule_id)
        return found

    async def of_tenant(self, principal: Principal) -> list[Schedule]:
        return await self.store.of_tenant(principal.tenant)

    async def _change(
        self, principal: Principal, schedule_id: str, etag: str, change: Change, user: bool = True
    ) -> Schedule:
        """`change` applied to the schedule as stored now, written with a compare and set
        on its revision; read and applied again when another write came between (another
        caller's, the firing loop's), up to WRITE_TRIES times. A given `etag` must be the
        stored one (EtagMismatchError otherwise): the firing loop's bookkeeping leaves
        the etag as it is, so only another user's change makes it stale. A user's change
        takes a new etag; bookkeeping (`user=False`, a trigger's) does not."""
        for _ in range(WRITE_TRIES):
            stored = await self.get(principal, schedule_id)
            if etag and etag != stored.etag:
                raise EtagMismatchError(f"schedule {schedule_id}", stored.etag)
            changed = replace(await change(stored), revision=new_etag())
            if user:
                changed = replace(changed, etag=new_etag(), updated_at=self.clock.now())
            if await self.store.replace(changed, stored.revision):
                return changed
        current = await self.get(principal, schedule_id)
        raise EtagMismatchError(f"schedule {schedule_id}", current.etag)

    async def update(
        self, call: CallContext, draft: Schedule, mask: Sequence[str], etag: str
    ) -> Schedule:
        """The fields `mask` names (all of FIELDS when empty) taken from `draft`."""
        self._manage(call.principal)
        names = list(mask) or list(FIELDS)
        unknown = [name for name in names if name not in FIELDS]
        if unknown:
            allowed = ", ".join(FIELDS)
            raise InvalidArgumentError(
                [
                    FieldViolation("update_mask", f"{name!r} is not one of: {allowed}")
                    for name in unknown
                ]
            )
        changes = {FIELDS[name]: getattr(draft, FIELDS[name]) for name in names}

        async def change(stored: Schedule) -> Schedule:
            changed = replace(stored, **changes)
            now = self.clock.now()
            await self._check(changed, now)
            return scheduled(changed, now) if "timing" in names else changed

        return await self._change(call.principal, draft.schedule_id, etag, change)

    async def pause(self, call: CallContext, schedule_id: str, etag: str = "") -> Schedule:
        self._manage(call.principal)
        why = f"paused by {call.principal.id}"

        async def change(stored: Schedule) -> Schedule:
            return replace(stored, state=ScheduleState.PAUSED, pause_reason=why)

        return await self._change(call.principal, schedule_id, etag, change)

    async def resume(self, call: CallContext, schedule_id: str, etag: str = "") -> Schedule:
        """Active again: the due times that passed while it was paused are handled by
        its catch-up rule at the next tick (MISSED outside it)."""
        self._manage(call.principal)

        async def change(stored: Schedule) -> Schedule:
            active = replace(stored, state=ScheduleState.ACTIVE, pause_reason="", refusals=0)
            if active.next_due is None:
                active = scheduled(active, self.clock.now())
            return replace(active, wake_at=active.next_due)

        return await self._change(call.principal, schedule_id, etag, change)

    async def delete(self, call: CallContext, schedule_id: str, etag: str = "") -> None:
        self._manage(call.principal)
        stored = await self.get(call.principal, schedule_id)
        if etag and etag != stored.etag:
            raise EtagMismatchError(f"schedule {schedule_id}", stored.etag)
        if not await self.store.delete(call.principal.tenant, schedule_id):
            raise ScheduleNotFoundError(schedule_id)

    async def trigger(self, call: CallContext, schedule_id: str, request_id: str) -> ScheduleRun:
        """Run the schedule now, once per `request_id` (a retry gets the same run); an
        ACTIVE one only (ScheduleNotActiveError: a paused one's queued run would never
        start). A run queued behind the running task (QUEUE_ONE) starts at the first
        tick after that task ends.

        A retry that finds its run still PENDING (the first attempt's start failed on its
        replica: shutting down, out of capacity, a store down) starts it: its task's
        idempotency key is the schedule's and the run's due time (`start_key`), so retries
        that race start one task; a retry later than `pending_trigger_seconds` FAILs it instead."""
        self._manage(call.principal)
        schedule = await self.get(call.principal, schedule_id)
        if schedule.state is not ScheduleState.ACTIVE:
            raise ScheduleNotActiveError(schedule_id, schedule.state.value)
        run = await self._trigger_run(schedule, request_id)
        if run.state is not RunState.PENDING:
            return run
        now = self.clock.now()
        if run.created_at is not None:
            age = (now - run.created_at).total_seconds()
            if age > self.pending_trigger_seconds:
                why = (
                    f"its start was retried {age:.0f}s after it was triggered, later than "
                    f"{self.pending_trigger_seconds:.0f}s: not started (it may have started "
                    "a task already, one a start this late would not find)"
                )
                failed = replace(run, state=RunState.FAILED, reason=why)
                await self.store.update_run(failed)
                return failed
        fired = await self.firing.due_time(schedule, run.due_at, now)  # its overlap policy
        if fired != schedule:
            await self._book(call.principal, schedule, fired, run.due_at)
        found = await self.store.get_run(schedule_id, run.due_at)
        assert found is not None
        return found

    async def _book(
        self, principal: Principal, read: Schedule, fired: Schedule, due: datetime
    ) -> None:
        """What a trigger's run changed (`read` to `fired`: its task, its queued run)
        onto the schedule as it is now: a user's change or the firing loop's write may
        have come between. A run the trigger queued gives way to one queued meanwhile
        (the loop's): that one keeps its place and the trigger's is SKIPPED."""
        now, tick = self.clock.now(), self.firing.settings.tick_seconds
        queued_meanwhile: datetime | None = None

        async def change(current: Schedule) -> Schedule:
            nonlocal queued_meanwhile
            booked = bookkept(read, fired, current)
            queued_meanwhile = None
            if fired.queued_due == due and current.queued_due not in (None, due):
                queued_meanwhile = current.queued_due
                booked = replace(booked, queued_due=current.queued_due)
            return woken(booked, now, tick)  # a queued run: looked at next tick

        with contextlib.suppress(ScheduleNotFoundError):  # deleted meanwhile
            await self._change(principal, read.schedule_id, "", change, user=False)
        if queued_meanwhile is not None:
            run = await self.store.get_run(read.schedule_id, due)
            if run is not None and run.state is RunState.QUEUED:
                why = f"the run due {queued_meanwhile.isoformat()} is queued already"
                await self.store.update_run(replace(run, state=RunState.SKIPPED, reason=why))

    async def _trigger_run(self, schedule: Schedule, request_id: str) -> ScheduleRun:
        """The run of this trigger: the one an earlier attempt with `request_id` recorded,
        or a new PENDING one due now."""
        if request_id:
            earlier = await self.store.run_by_request(schedule.schedule_id, request_id)
            if earlier is not None:
                return earlier
        now = self.clock.now()
        run = ScheduleRun(
            schedule.schedule_id,
            schedule.tenant,
            now,
            RunState.PENDING,
            request_id=request_id,
            created_at=now,
        )
        if await self.store.add_run(run):
            return run
        found = await self.store.get_run(schedule.schedule_id, now)
        assert found is not None
        return found

    async def runs(self, principal: Principal, schedule_id: str, limit: int) -> list[RunView]:
        """The schedule's newest runs first, each with its task's status now."""
        await self.get(principal, schedule_id)
        found = await self.store.runs(principal.tenant, schedule_id, limit)
        return [RunView(run, await self._status(principal.tenant, run)) for run in found]

    async def _status(self, tenant: str, run: ScheduleRun) -> TaskStatus | None:
        if not run.task_id:
            return None
        try:
            return (await self.firing.engine.find(tenant, run.task_id)).status
        except TaskNotFoundError:
            return None
