"""The firing loop with a controlled clock: each due time runs once even when two
replicas reach it together or one dies mid-fire; the overlap policies (skip, queue one,
cancel the previous); catch-up after an outage; the principal re-resolved at each run (a
revoked key refuses the run with the reason, repeated refusals pause the schedule); the
task carries the schedule's label and context."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from core.errors import PermissionDeniedError, ShuttingDownError, TaskNotFoundError
from core.identity import CallContext, Principal
from records.keys import new_key
from records.requests import TaskRequest
from records.schedules.model import (
    CatchUp,
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
from server.services.scheduled.firing import SCHEDULE_LABEL, Firing, FiringSettings
from server.services.scheduled.standing import Standing
from stores.api_keys.memory import InMemoryKeyStore
from stores.schedules.memory import MemoryScheduleStore

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)
ALICE = Principal("alice", "acme", ("operator",))
SETTINGS = FiringSettings(lease_seconds=10, tick_seconds=0.5, max_refusals=3)


@dataclass
class FakeEngine:
    """Starts tasks as `Engine.start` does for what firing relies on: a retry with the same
    idempotency key (per tenant and caller) gets the same task back."""

    tasks: dict[str, Task] = field(default_factory=dict)
    keys: dict[tuple[str, str, str], str] = field(default_factory=dict)
    requests: list[tuple[TaskRequest, Principal]] = field(default_factory=list)
    denied: set[str] = field(default_factory=set)
    quick: bool = False
    """Tasks end as soon as they start."""
    draining: int = 0
    """Starts refused with ShuttingDownError before any is accepted."""

    async def start(self, request: TaskRequest, call: CallContext) -> Task:
        principal = call.principal
        if self.draining:
            self.draining -= 1
            raise ShuttingDownError
        if principal.id in self.denied:
            raise PermissionDeniedError("web_fetch", "execute", "grant revoked")
        key = (principal.tenant, principal.id, request.idempotency_key)
        if key in self.keys:
            return self.tasks[self.keys[key]]
        task = Task(
            task_id=f"t{len(self.tasks) + 1}",
            tenant=principal.tenant,
            owner=principal.id,
            goal=request.goal,
            status=TaskStatus.COMPLETED if self.quick else TaskStatus.RUNNING,
        )
        self.tasks[task.task_id] = task
        self.keys[key] = task.task_id
        self.requests.append((request, principal))
        return task

    async def find(self, tenant: str, task_id: str) -> Task:
        if task_id not in self.tasks:
            raise TaskNotFoundError(task_id)
        return self.tasks[task_id]

    async def cancel(self, tenant: str, task_id: str, reason: str) -> Task:
        self.tasks[task_id].status = TaskStatus.CANCELLED
        return self.tasks[task_id]

    def finish_all(self) -> None:
        for task in self.tasks.values():
            task.status = TaskStatus.COMPLETED


def every_minute(**changes: object) -> Schedule:
    schedule = Schedule(
        schedule_id="s1",
        tenant="acme",
        timing=Timing(TimingKind.INTERVAL, interval_seconds=60, start=T0),
        task=TaskTemplate(agent="a", goal="report", context={"team": "ops"}),
        principal=ALICE,
        etag="e1",
        next_due=T0,
        wake_at=T0,
    )
    return replace(schedule, **changes)  # type: ignore[arg-type]


def firing(
    store: MemoryScheduleStore,
    engine: FakeEngine,
    clock: ManualClock,
    replica: str = "r1",
    keys: InMemoryKeyStore | None = None,
) -> Firing:
    return Firing(store, engine, Standing(keys), clock, replica, SETTINGS)


async def run_states(store: MemoryScheduleStore) -> list[tuple[datetime, RunState, str]]:
    runs = await store.runs("acme", "s1", 100)
    return [(r.due_at, r.state, r.task_id) for r in reversed(runs)]


async def test_each_due_time_starts_one_task_with_the_schedules_label_and_context() -> None:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(), ManualClock(T0)
    await store.create(every_minute())
    one, two = firing(store, engine, clock), firing(store, engine, clock, "r2")
    for _ in range(3):
        await one.tick()
        await two.tick()
        engine.finish_all()
        clock.advance(60)
    assert [s for _, s, _ in await run_states(store)] == [RunState.STARTED] * 3
    assert len(engine.tasks) == 3
    request, principal = engine.requests[0]
    assert request.labels[SCHEDULE_LABEL] == "s1"
    assert principal == ALICE
    assert request.context == {
        "team": "ops",
        "schedule": {"schedule_id": "s1", "due_time": T0.isoformat()},
    }
    stored = await store.get("acme", "s1")
    assert stored is not None
    assert stored.next_due == T0 + timedelta(minutes=3)


async def test_a_replica_dying_mid_fire_is_taken_over_after_its_lease_without_a_second_task() -> (
    None
):
    store, engine, clock = MemoryScheduleStore(), FakeEngine(), ManualClock(T0)
    await store.create(every_minute())
    dying = firing(store, engine, clock, "r1")
    [claimed] = await store.claim(T0, "r1", T0 + timedelta(seconds=10), 10)
    await dying.fire(claimed, T0)  # the task started; the replica dies before saving
    assert len(engine.tasks) == 1
    taker = firing(store, engine, clock, "r2")
    clock.advance(5)
    assert await taker.tick() == 0  # the lease still holds
    clock.advance(6)
    assert await taker.tick() == 1
    assert len(engine.tasks) == 1  # the due time's run was recorded: nothing doubled


async def test_a_pending_run_left_by_a_dead_replica_starts_its_task_once() -> None:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(), ManualClock(T0)
    await store.create(every_minute())
    from records.schedules.model import ScheduleRun

    await store.add_run(ScheduleRun("s1", "acme", T0, RunState.PENDING))  # died here
    clock.advance(11)
    await firing(store, engine, clock, "r2").tick()
    assert [(s, t) for _, s, t in await run_states(store)] == [(RunState.STARTED, "t1")]


async def test_skip_while_the_previous_task_runs() -> None:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(), ManualClock(T0)
    await store.create(every_minute(overlap=Overlap.SKIP))
    fire = firing(store, engine, clock)
    await fire.tick()
    clock.advance(60)
    await fire.tick()
    states = await run_states(store)
    assert [s for _, s, _ in states] == [RunState.STARTED, RunState.SKIPPED]
    runs = await store.runs("acme", "s1", 1)
    assert "t1 still runs" in runs[0].reason


async def test_queue_one_starts_the_queued_run_when_the_previous_ends() -> None:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(), ManualClock(T0)
    await store.create(every_minute(overlap=Overlap.QUEUE_ONE))
    fire = firing(store, engine, clock)
    await fire.tick()
    clock.advance(60)
    await fire.tick()  # queued behind t1
    clock.advance(60)
    await fire.tick()  # one is queued already: skipped
    assert [s for _, s, _ in await run_states(store)] == [
        RunState.STARTED,
        RunState.QUEUED,
        RunState.SKIPPED,
    ]
    engine.finish_all()
    clock.advance(1)
    await fire.tick()
    assert [(s, t) for _, s, t in await run_states(store)] == [
        (RunState.STARTED, "t1"),
        (RunState.STARTED, "t2"),
        (RunState.SKIPPED, ""),
    ]


async def test_cancel_previous_cancels_the_running_task_and_starts() -> None:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(), ManualClock(T0)
    await store.create(every_minute(overlap=Overlap.CANCEL_PREVIOUS))
    fire = firing(store, engine, clock)
    await fire.tick()
    clock.advance(60)
    await fire.tick()
    assert engine.tasks["t1"].status is TaskStatus.CANCELLED
    assert [(s, t) for _, s, t in await run_states(store)] == [
        (RunState.STARTED, "t1"),
        (RunState.STARTED, "t2"),
    ]


async def test_catch_up_after_an_outage_follows_the_policy() -> None:
    for policy, started in ((CatchUp.LATEST, 1), (CatchUp.EACH, 10), (CatchUp.NONE, 0)):
        store, engine, clock = MemoryScheduleStore(), FakeEngine(quick=True), ManualClock(T0)
        await store.create(every_minute(catch_up=policy, catch_up_window_seconds=3600))
        clock.advance(9 * 60 + 30)  # no replica for 9.5 minutes: due times 0..9 passed
        await firing(store, engine, clock).tick()
        states = [s for _, s, _ in await run_states(store)]
        assert states.count(RunState.STARTED) == started, policy
        assert states.count(RunState.MISSED) == 10 - started, policy
        stored = await store.get("acme", "s1")
        assert stored is not None
        assert stored.next_due == T0 + timedelta(minutes=10)


async def test_a_revoked_key_refuses_runs_with_the_reason_then_pauses() -> None:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(), ManualClock(T0)
    keys = InMemoryKeyStore()
    key, _ = new_key("acme", "alice", ("operator",))
    await keys.add(key)
    await store.create(every_minute())
    fire = firing(store, engine, clock, keys=keys)
    await fire.tick()
    await keys.revoke(key.key_id)
    for _ in range(3):
        engine.finish_all()
        clock.advance(60)
        await fire.tick()
    runs = await store.runs("acme", "s1", 10)
    assert [r.state for r in reversed(runs)] == [RunState.STARTED] + [RunState.REFUSED] * 3
    assert "API keys of tenant 'acme' were revoked" in runs[0].reason
    stored = await store.get("acme", "s1")
    assert stored is not None
    assert stored.state is ScheduleState.PAUSED
    assert stored.refusals == 3
    assert "API keys of tenant 'acme' were revoked" in stored.pause_reason
    clock.advance(60)
    await fire.tick()  # paused: nothing more is claimed
    assert len(await store.runs("acme", "s1", 10)) == 4


async def test_a_revoked_grant_refuses_and_a_success_resets_the_count() -> None:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(), ManualClock(T0)
    await store.create(every_minute())
    fire = firing(store, engine, clock)
    engine.denied.add("alice")
    await fire.tick()
    runs = await store.runs("acme", "s1", 1)
    assert runs[0].state is RunState.REFUSED
    assert "permission denied" in runs[0].reason
    engine.denied.clear()
    clock.advance(60)
    await fire.tick()
    stored = await store.get("acme", "s1")
    assert stored is not None
    assert stored.refusals == 0
    assert stored.state is ScheduleState.ACTIVE


async def test_roles_are_taken_from_the_principals_active_key_now() -> None:
    keys = InMemoryKeyStore()
    key, _ = new_key("acme", "alice", ("viewer",))
    await keys.add(key)
    assert (await Standing(keys)(ALICE)).roles == ("viewer",)
    never_keyed = Principal("bob", "acme", ("operator",))
    assert await Standing(keys)(never_keyed) == never_keyed


async def test_a_one_time_schedule_ends_after_its_run() -> None:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(), ManualClock(T0)
    await store.create(every_minute(timing=Timing(TimingKind.ONCE, at=T0)))
    await firing(store, engine, clock).tick()
    stored = await store.get("acme", "s1")
    assert stored is not None
    assert stored.state is ScheduleState.ENDED
    assert stored.next_due is None


async def test_0230_berlin_fires_at_the_documented_times_across_both_changes() -> None:
    """docs/schedules.md's table, fired by the loop with a controlled clock."""
    timing = Timing(TimingKind.CRON, expression="30 2 * * *", time_zone="Europe/Berlin")
    expected = {
        "spring": [
            datetime(2026, 3, d, h, m, tzinfo=UTC)
            for d, h, m in ((28, 1, 30), (29, 1, 0), (30, 0, 30))
        ],
        "autumn": [
            datetime(2026, 10, d, h, m, tzinfo=UTC)
            for d, h, m in ((24, 0, 30), (25, 0, 30), (26, 1, 30))
        ],
    }
    for times in expected.values():
        store = MemoryScheduleStore()
        engine = FakeEngine(quick=True)
        clock = ManualClock(times[0] - timedelta(hours=1))
        await store.create(every_minute(timing=timing, next_due=times[0], wake_at=times[0]))
        fire = firing(store, engine, clock)
        while clock.now() < times[-1] + timedelta(hours=1):
            clock.advance(600)  # every ten minutes, for three days
            await fire.tick()
        runs = await run_states(store)
        assert [(due, state) for due, state, _ in runs] == [
            (due, RunState.STARTED) for due in times
        ]


async def test_a_draining_replica_leaves_the_run_pending_for_another() -> None:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(draining=1), ManualClock(T0)
    await store.create(every_minute())
    await firing(store, engine, clock, "r1").tick()  # SHUTTING_DOWN: nothing recorded but
    assert [s for _, s, _ in await run_states(store)] == [RunState.PENDING]
    clock.advance(11)  # the lease ends
    await firing(store, engine, clock, "r2").tick()
    assert [(s, t) for _, s, t in await run_states(store)] == [(RunState.STARTED, "t1")]


async def test_a_pending_run_found_too_late_is_recorded_missed() -> None:
    store, engine, clock = MemoryScheduleStore(), FakeEngine(draining=1), ManualClock(T0)
    await store.create(
        every_minute(timing=Timing(TimingKind.INTERVAL, interval_seconds=3600, start=T0))
    )
    await firing(store, engine, clock, "r1").tick()
    clock.advance(120)  # no replica for two minutes; no catch-up window
    await firing(store, engine, clock, "r2").tick()
    [(_, state, task)] = await run_states(store)
    assert (state, task) == (RunState.MISSED, "")
    assert engine.tasks == {}
