"""ScheduleService's rules: each bad field named, the agent looked up, roles to change,
updates on the etag read with a mask, pause and resume, a trigger once per request id,
runs listed with their tasks' status."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import pytest

from core.errors import (
    AgentNotFoundError,
    EtagMismatchError,
    InvalidArgumentError,
    RoleRequiredError,
    ScheduleNotActiveError,
    ScheduleNotFoundError,
    ShuttingDownError,
)
from core.identity import CallContext, Principal
from core.roles import DEFAULT_ROLES
from records.requests import TaskRequest
from records.schedules.model import (
    Overlap,
    RunState,
    Schedule,
    ScheduleState,
    TaskTemplate,
    Timing,
    TimingKind,
)
from records.schedules.timing import ManualClock
from records.tasks import Task, TaskStatus
from server.services.scheduled.firing import Firing
from server.services.scheduled.service import ScheduleService
from server.services.scheduled.standing import Standing
from stores.schedules.memory import MemoryScheduleStore
from tests.unit.server.test_schedule_firing import SETTINGS, FakeEngine

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)
OPERATOR = CallContext(principal=Principal("ops", "acme", ("operator",)))
READER = CallContext(principal=Principal("bob", "acme", ()))


async def _find_agent(tenant: str, reference: str) -> object:
    if reference != "reporter":
        raise AgentNotFoundError(reference)
    return object()


def service() -> tuple[ScheduleService, FakeEngine, ManualClock]:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(), ManualClock(T0)
    firing = Firing(store, engine, Standing(), clock, "r1", SETTINGS)
    return ScheduleService(store, firing, _find_agent, DEFAULT_ROLES, clock), engine, clock


def draft(**changes: object) -> Schedule:
    schedule = Schedule(
        schedule_id="",
        tenant="",
        timing=Timing(TimingKind.CRON, expression="0 7 * * 1-5", time_zone="Europe/Berlin"),
        task=TaskTemplate(agent="reporter", goal="the morning report"),
        principal=OPERATOR.principal,
    )
    return replace(schedule, **changes)  # type: ignore[arg-type]


def fields(error: InvalidArgumentError) -> set[str]:
    return {violation.field for violation in error.field_violations}


async def test_create_sets_the_next_due_time_in_the_zone() -> None:
    schedules, _, _ = service()
    made = await schedules.create(OPERATOR, draft())
    assert made.schedule_id.startswith("sch_")
    assert made.tenant == "acme"
    assert made.principal == OPERATOR.principal
    assert made.next_due == datetime(2026, 3, 2, 6, tzinfo=UTC)  # Monday 07:00 CET
    assert made.state is ScheduleState.ACTIVE
    assert made.etag


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        (
            {"timing": Timing(TimingKind.CRON, expression="0 7 * *")},
            "schedule.timing.cron.expression",
        ),
        (
            {"timing": Timing(TimingKind.CRON, expression="0 7 * * *", time_zone="Mars/Base")},
            "schedule.timing.cron.time_zone",
        ),
        ({"timing": Timing(TimingKind.INTERVAL, interval_seconds=5)}, "schedule.timing.interval"),
        (
            {"timing": Timing(TimingKind.CRON, expression="*/30 * * * * *")},
            "schedule.timing.cron.expression",
        ),
        ({"timing": Timing(TimingKind.ONCE, at=T0 - timedelta(seconds=1))}, "schedule.timing.at"),
        ({"task": TaskTemplate(agent="reporter", goal="")}, "schedule.task.goal"),
        ({"task": TaskTemplate(agent="reporter", goal="x" * 5001)}, "schedule.task.goal"),
        (
            {"task": TaskTemplate(agent="reporter", goal="g", context={"schedule": 1})},
            "schedule.task.context",
        ),
        (
            {"task": TaskTemplate(agent="reporter", goal="g", context={"k": "v" * 11_000})},
            "schedule.task.context",
        ),
        ({"labels": {"Bad Key": "v"}}, "schedule.labels[Bad Key]"),
    ],
)
async def test_bad_fields_are_named(changes: dict[str, object], field: str) -> None:
    schedules, _, _ = service()
    with pytest.raises(InvalidArgumentError) as caught:
        await schedules.create(OPERATOR, draft(**changes))
    assert field in fields(caught.value)


async def test_an_unknown_agent_is_not_found_and_readers_may_not_change() -> None:
    schedules, _, _ = service()
    with pytest.raises(AgentNotFoundError):
        await schedules.create(OPERATOR, draft(task=TaskTemplate(agent="ghost", goal="g")))
    with pytest.raises(RoleRequiredError):
        await schedules.create(READER, draft())
    made = await schedules.create(OPERATOR, draft())
    assert (await schedules.get(READER.principal, made.schedule_id)) == made
    other = Principal("eve", "other", ("operator",))
    with pytest.raises(ScheduleNotFoundError):
        await schedules.get(other, made.schedule_id)


async def test_update_takes_the_masked_fields_on_the_etag_read() -> None:
    schedules, _, _ = service()
    made = await schedules.create(OPERATOR, draft(display_name="old"))
    change = replace(made, display_name="new", task=TaskTemplate(agent="reporter", goal="x"))
    updated = await schedules.update(OPERATOR, change, ["display_name"], made.etag)
    assert updated.display_name == "new"
    assert updated.task == made.task
    assert updated.etag != made.etag
    with pytest.raises(EtagMismatchError):
        await schedules.update(OPERATOR, change, ["display_name"], made.etag)
    with pytest.raises(InvalidArgumentError) as caught:
        await schedules.update(OPERATOR, change, ["principal"], updated.etag)
    assert fields(caught.value) == {"update_mask"}


async def test_pause_then_resume_leaves_the_missed_due_times_to_the_catch_up_rule() -> None:
    schedules, engine, clock = service()
    made = await schedules.create(OPERATOR, draft())
    paused = await schedules.pause(OPERATOR, made.schedule_id)
    assert paused.state is ScheduleState.PAUSED
    assert paused.pause_reason == "paused by ops"
    clock.advance(7 * 86_400)
    assert await schedules.firing.tick() == 0  # paused: not claimed
    resumed = await schedules.resume(OPERATOR, made.schedule_id, paused.etag)
    assert resumed.state is ScheduleState.ACTIVE
    assert resumed.next_due == made.next_due
    await schedules.firing.tick()  # LATEST, no window: the week's five are MISSED
    views = await schedules.runs(READER.principal, made.schedule_id, 10)
    assert [v.run.state for v in views] == [RunState.MISSED] * 5
    stored = await schedules.get(READER.principal, made.schedule_id)
    assert stored.next_due == datetime(2026, 3, 9, 6, tzinfo=UTC)
    assert engine.tasks == {}


async def test_create_is_idempotent_by_request_id() -> None:
    schedules, _, _ = service()
    first = await schedules.create(OPERATOR, draft(), "req-9")
    again = await schedules.create(OPERATOR, draft(display_name="other"), "req-9")
    assert again == first
    other = await schedules.create(OPERATOR, draft(), "req-10")
    assert other.schedule_id != first.schedule_id


async def test_trigger_follows_the_overlap_policy() -> None:
    schedules, engine, clock = service()
    made = await schedules.create(OPERATOR, draft())
    first = await schedules.trigger(OPERATOR, made.schedule_id, "a")
    clock.advance(1)
    second = await schedules.trigger(OPERATOR, made.schedule_id, "b")  # SKIP: t1 runs
    assert first.state is RunState.STARTED
    assert second.state is RunState.SKIPPED
    assert "t1 still runs" in second.reason
    assert len(engine.tasks) == 1


async def test_trigger_runs_once_per_request_id_and_runs_show_the_task_status() -> None:
    schedules, engine, clock = service()
    made = await schedules.create(OPERATOR, draft())
    first = await schedules.trigger(OPERATOR, made.schedule_id, "req-1")
    clock.advance(1)
    again = await schedules.trigger(OPERATOR, made.schedule_id, "req-1")
    assert first == again
    assert first.state is RunState.STARTED
    assert len(engine.tasks) == 1
    views = await schedules.runs(READER.principal, made.schedule_id, 10)
    assert [(v.run.task_id, v.task_status) for v in views] == [("t1", TaskStatus.RUNNING)]
    await schedules.delete(OPERATOR, made.schedule_id)
    with pytest.raises(ScheduleNotFoundError):
        await schedules.runs(READER.principal, made.schedule_id, 10)


async def test_a_spend_limit_is_kept_and_each_run_is_started_with_it() -> None:
    schedules, engine, _ = service()
    task = TaskTemplate(agent="reporter", goal="the morning report", spend_limit=250_000)
    made = await schedules.create(OPERATOR, draft(task=task))
    assert (await schedules.get(READER.principal, made.schedule_id)).task.spend_limit == 250_000
    await schedules.trigger(OPERATOR, made.schedule_id, "req-1")
    [(request, _)] = engine.requests
    assert request.spend_limit == 250_000


async def test_a_trigger_retried_after_a_replica_failure_starts_its_run_once() -> None:
    schedules, engine, clock = service()
    made = await schedules.create(OPERATOR, draft())
    engine.draining = 1  # the first attempt's replica is shutting down
    with pytest.raises(ShuttingDownError):
        await schedules.trigger(OPERATOR, made.schedule_id, "req-7")
    clock.advance(2)
    retried = await schedules.trigger(OPERATOR, made.schedule_id, "req-7")
    assert retried.state is RunState.STARTED
    assert retried.due_at == T0  # the first attempt's run, not a second one
    again = await schedules.trigger(OPERATOR, made.schedule_id, "req-7")
    assert again == retried
    assert len(engine.tasks) == 1
    stored = await schedules.get(READER.principal, made.schedule_id)
    assert stored.current_task_id == retried.task_id


async def test_concurrent_retries_of_a_pending_trigger_start_one_task() -> None:
    schedules, engine, _ = service()
    made = await schedules.create(OPERATOR, draft())
    engine.draining = 1
    with pytest.raises(ShuttingDownError):
        await schedules.trigger(OPERATOR, made.schedule_id, "req-8")
    both = await asyncio.gather(
        schedules.trigger(OPERATOR, made.schedule_id, "req-8"),
        schedules.trigger(OPERATOR, made.schedule_id, "req-8"),
    )
    assert {run.task_id for run in both} == {"t1"}
    assert len(engine.tasks) == 1


@dataclass
class MeanwhileEngine(FakeEngine):
    """Runs `meanwhile` once, inside the first start, before the task exists: another
    write that lands while a trigger waits on the engine."""

    meanwhile: Callable[[], Awaitable[object]] | None = None

    async def start(self, request: TaskRequest, call: CallContext) -> Task:
        meanwhile, self.meanwhile = self.meanwhile, None
        if meanwhile is not None:
            await meanwhile()
        return await super().start(request, call)


def service_with(engine: FakeEngine) -> tuple[ScheduleService, ManualClock]:
    store, clock = MemoryScheduleStore(), ManualClock(T0)
    firing = Firing(store, engine, Standing(), clock, "r1", SETTINGS)
    return ScheduleService(store, firing, _find_agent, DEFAULT_ROLES, clock), clock


async def test_a_trigger_keeps_a_user_change_made_while_it_starts_its_task() -> None:
    engine = MeanwhileEngine()
    schedules, _ = service_with(engine)
    made = await schedules.create(OPERATOR, draft(display_name="old"))
    renamed = replace(made, display_name="new")
    engine.meanwhile = lambda: schedules.update(OPERATOR, renamed, ["display_name"], made.etag)
    run = await schedules.trigger(OPERATOR, made.schedule_id, "req-1")
    stored = await schedules.get(READER.principal, made.schedule_id)
    assert stored.display_name == "new"  # the user's change kept
    assert stored.current_task_id == run.task_id == "t1"  # and the trigger's


async def test_a_trigger_does_not_undo_the_firing_loops_write() -> None:
    engine = MeanwhileEngine()
    schedules, clock = service_with(engine)
    made = await schedules.create(OPERATOR, draft(overlap=Overlap.CANCEL_PREVIOUS))
    assert made.next_due is not None
    clock.current = made.next_due + timedelta(seconds=1)  # the loop fires it meanwhile
    engine.meanwhile = schedules.firing.tick
    await schedules.trigger(OPERATOR, made.schedule_id, "req-1")
    stored = await schedules.get(READER.principal, made.schedule_id)
    assert stored.next_due == made.next_due + timedelta(days=1)  # not put back
    assert stored.current_task_id == "t2"  # the trigger's task, the newest
    assert len(engine.tasks) == 2


async def test_a_triggered_run_queued_behind_a_task_starts_at_the_next_tick_after_it() -> None:
    schedules, engine, clock = service()
    made = await schedules.create(OPERATOR, draft(overlap=Overlap.QUEUE_ONE))
    first = await schedules.trigger(OPERATOR, made.schedule_id, "a")
    clock.advance(1)
    queued = await schedules.trigger(OPERATOR, made.schedule_id, "b")
    assert queued.state is RunState.QUEUED
    engine.tasks[first.task_id].status = TaskStatus.COMPLETED
    clock.advance(1)  # hours before the next regular due time
    assert await schedules.firing.tick() == 1
    started = await schedules.store.get_run(made.schedule_id, queued.due_at)
    assert started is not None
    assert started.state is RunState.STARTED
    assert started.task_id == "t2"


@pytest.mark.parametrize("state", [ScheduleState.PAUSED, ScheduleState.ENDED])
async def test_a_schedule_that_is_not_active_is_not_triggered(state: ScheduleState) -> None:
    schedules, engine, _ = service()
    made = await schedules.create(OPERATOR, draft())
    await schedules.store.replace(replace(made, state=state, revision="r2"), made.revision)
    with pytest.raises(ScheduleNotActiveError) as caught:
        await schedules.trigger(OPERATOR, made.schedule_id, "a")
    assert caught.value.state == state.value
    assert state.value in caught.value.message
    assert engine.tasks == {}
    assert await schedules.store.runs("acme", made.schedule_id, 10) == []
