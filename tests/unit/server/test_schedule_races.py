"""Writes that land while the firing loop or a trigger works on a schedule: what the
tick decided survives a user's change made meanwhile (a queued run still starts, the
running task is still the one a new due time overlaps with); the loop's bookkeeping does
not make a user's etag stale; a trigger does not replace a run the loop queued; a
trigger's run left pending past the engine key's lifetime is not started."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import timedelta

from core.identity import CallContext
from records.requests import TaskRequest
from records.schedules.model import Overlap, RunState, ScheduleRun, Timing, TimingKind
from records.tasks import Task
from server.services.scheduled.service import ScheduleService
from tests.unit.server.test_schedule_firing import FakeEngine
from tests.unit.server.test_schedule_service import OPERATOR, READER, draft, service_with

Meanwhile = Callable[[], Awaitable[object]]
MINUTE = Timing(TimingKind.INTERVAL, interval_seconds=60)


@dataclass
class Meddling(FakeEngine):
    """Runs `on_start` (`on_find`) once, inside the next start (find): a write that lands
    while the loop or a trigger waits on the engine."""

    on_start: Meanwhile | None = None
    on_find: Meanwhile | None = None

    async def start(self, request: TaskRequest, call: CallContext) -> Task:
        meanwhile, self.on_start = self.on_start, None
        if meanwhile is not None:
            await meanwhile()
        return await super().start(request, call)

    async def find(self, tenant: str, task_id: str) -> Task:
        meanwhile, self.on_find = self.on_find, None
        if meanwhile is not None:
            await meanwhile()
        return await super().find(tenant, task_id)


def rename(schedules: ScheduleService, schedule_id: str, name: str) -> Meanwhile:
    async def renamed() -> object:
        stored = await schedules.get(READER.principal, schedule_id)
        named = replace(stored, display_name=name)
        return await schedules.update(OPERATOR, named, ["display_name"], stored.etag)

    return renamed


async def test_a_run_queued_while_a_user_renames_still_starts() -> None:
    engine = Meddling()
    schedules, clock = service_with(engine)
    made = await schedules.create(OPERATOR, draft(timing=MINUTE, overlap=Overlap.QUEUE_ONE))
    assert made.next_due is not None
    clock.current = made.next_due
    await schedules.firing.tick()  # t1 starts
    clock.advance(60)
    engine.on_find = rename(schedules, made.schedule_id, "renamed")
    await schedules.firing.tick()  # the next due time queued behind t1, renamed meanwhile
    stored = await schedules.get(READER.principal, made.schedule_id)
    assert stored.display_name == "renamed"
    assert stored.queued_due == clock.current
    engine.finish_all()
    clock.advance(1)
    await schedules.firing.tick()
    run = await schedules.store.get_run(made.schedule_id, made.next_due + timedelta(minutes=1))
    assert run is not None
    assert (run.state, run.task_id) == (RunState.STARTED, "t2")


async def test_a_task_started_while_a_user_renames_is_the_one_the_next_due_time_skips() -> None:
    engine = Meddling()
    schedules, clock = service_with(engine)
    made = await schedules.create(OPERATOR, draft(timing=MINUTE, overlap=Overlap.SKIP))
    assert made.next_due is not None
    clock.current = made.next_due
    engine.on_start = rename(schedules, made.schedule_id, "renamed")
    await schedules.firing.tick()  # t1 starts, renamed meanwhile
    stored = await schedules.get(READER.principal, made.schedule_id)
    assert (stored.display_name, stored.current_task_id) == ("renamed", "t1")
    clock.advance(60)
    await schedules.firing.tick()
    assert len(engine.tasks) == 1
    run = await schedules.store.get_run(made.schedule_id, clock.current)
    assert run is not None
    assert run.state is RunState.SKIPPED


async def test_the_loops_bookkeeping_leaves_the_users_etag_as_it_is() -> None:
    engine = Meddling()
    schedules, clock = service_with(engine)
    made = await schedules.create(OPERATOR, draft(timing=MINUTE, overlap=Overlap.QUEUE_ONE))
    assert made.next_due is not None
    clock.current = made.next_due
    await schedules.firing.tick()
    clock.advance(60)
    await schedules.firing.tick()  # queued behind t1: looked at every tick
    etag = (await schedules.get(READER.principal, made.schedule_id)).etag
    for _ in range(5):
        clock.advance(1)
        assert await schedules.firing.tick() == 1
    renamed = replace(made, display_name="renamed")
    changed = await schedules.update(OPERATOR, renamed, ["display_name"], etag)
    assert changed.display_name == "renamed"
    await schedules.pause(OPERATOR, made.schedule_id, changed.etag)


async def test_a_trigger_does_not_replace_a_run_the_loop_queued_meanwhile() -> None:
    engine = Meddling()
    schedules, clock = service_with(engine)
    made = await schedules.create(OPERATOR, draft(timing=MINUTE, overlap=Overlap.QUEUE_ONE))
    assert made.next_due is not None
    clock.current = made.next_due
    await schedules.firing.tick()  # t1 starts
    due = made.next_due + timedelta(minutes=1)
    clock.current = due + timedelta(seconds=0.2)
    engine.on_find = schedules.firing.tick  # the loop queues `due` behind t1 meanwhile
    triggered = await schedules.trigger(OPERATOR, made.schedule_id, "req-1")
    assert triggered.state is RunState.SKIPPED
    assert "queued" in triggered.reason
    stored = await schedules.get(READER.principal, made.schedule_id)
    assert stored.queued_due == due
    engine.finish_all()
    clock.advance(1)
    await schedules.firing.tick()
    run = await schedules.store.get_run(made.schedule_id, due)
    assert run is not None
    assert (run.state, run.task_id) == (RunState.STARTED, "t2")


async def test_a_trigger_retried_after_its_run_went_stale_fails_it_instead_of_starting() -> None:
    engine = Meddling()
    schedules, clock = service_with(engine)
    made = await schedules.create(OPERATOR, draft(timing=MINUTE))
    first = ScheduleRun(
        made.schedule_id, "acme", clock.current, RunState.PENDING, request_id="req-1"
    )
    await schedules.store.add_run(replace(first, created_at=clock.current))  # start failed
    clock.advance(2 * 24 * 3600)  # retried two days on
    retried = await schedules.trigger(OPERATOR, made.schedule_id, "req-1")
    assert retried.state is RunState.FAILED
    assert "retried" in retried.reason
    assert engine.tasks == {}
