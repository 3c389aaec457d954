"""The TaskStore contract, run against every backend (see conftest.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from core.errors import TaskAlreadyTerminalError, TaskNotFoundError
from records import events as ev
from records.parts import InputPart
from records.plan import Plan, PlanStep
from records.tasks import StopReason, Task, TaskStatus, TokenUsage
from stores.tasks.base import TaskStore


def _task(task_id: str = "task_1", tenant: str = "acme") -> Task:
    return Task(
        task_id=task_id, tenant=tenant, owner="alice", goal="sum the numbers", context={"n": [1, 2]}
    )


async def test_create_then_get(store: TaskStore) -> None:
    await store.create(_task())
    got = await store.get("acme", "task_1")
    assert (got.task_id, got.owner, got.goal, got.context) == (
        "task_1",
        "alice",
        "sum the numbers",
        {"n": [1, 2]},
    )
    assert got.status is TaskStatus.PENDING


async def test_ids_are_unique(store: TaskStore) -> None:
    await store.create(_task())
    with pytest.raises(ValueError, match="taken"):
        await store.create(_task())
    assert (await store.get("acme", "task_1")).owner == "alice"


async def test_other_tenants_see_nothing(store: TaskStore) -> None:
    await store.create(_task())
    with pytest.raises(TaskNotFoundError):
        await store.get("globex", "task_1")
    with pytest.raises(TaskNotFoundError):
        await store.set_status("globex", "task_1", TaskStatus.CANCELLED)
    assert (await store.get("acme", "task_1")).status is TaskStatus.PENDING


async def test_returned_tasks_are_copies(store: TaskStore) -> None:
    await store.create(_task())
    got = await store.get("acme", "task_1")
    got.context["n"].append(3)
    got.status = TaskStatus.COMPLETED
    again = await store.get("acme", "task_1")
    assert again.context == {"n": [1, 2]}
    assert again.status is TaskStatus.PENDING


async def test_terminal_status_is_never_overwritten(store: TaskStore) -> None:
    await store.create(_task())
    cancelled = await store.set_status("acme", "task_1", TaskStatus.CANCELLED, detail="stop")
    assert cancelled.stop_reason is StopReason.CANCELLED
    assert cancelled.updated_at >= cancelled.created_at
    with pytest.raises(TaskAlreadyTerminalError):
        await store.set_status("acme", "task_1", TaskStatus.COMPLETED)
    assert (await store.get("acme", "task_1")).status is TaskStatus.CANCELLED


async def test_concurrent_terminal_transitions_only_one_wins(store: TaskStore) -> None:
    await store.create(_task())
    await store.set_status("acme", "task_1", TaskStatus.RUNNING)
    outcomes = await asyncio.gather(
        store.set_status("acme", "task_1", TaskStatus.CANCELLED),
        store.set_status("acme", "task_1", TaskStatus.COMPLETED),
        return_exceptions=True,
    )
    assert sum(isinstance(o, TaskAlreadyTerminalError) for o in outcomes) == 1
    final = await store.get("acme", "task_1")
    assert final.status in (TaskStatus.CANCELLED, TaskStatus.COMPLETED)


async def test_unknown_id(store: TaskStore) -> None:
    with pytest.raises(TaskNotFoundError):
        await store.get("acme", "nope")


async def test_update_keeps_every_field(store: TaskStore) -> None:
    await store.create(_task())
    task = await store.get("acme", "task_1")
    task.status = TaskStatus.RUNNING
    task.plan = Plan(
        (PlanStep("s1", "first", tool="calculator", arguments={"expression": "1"}),), revision=2
    )
    task.usage = TokenUsage(10, 5, 1)
    task.current_step, task.total_steps = 1, 3
    await store.update(task)
    got = await store.get("acme", "task_1")
    assert got.plan == task.plan
    assert got.usage == TokenUsage(10, 5, 1)
    assert (got.status, got.current_step, got.total_steps) == (TaskStatus.RUNNING, 1, 3)
    assert got.updated_at >= task.updated_at


async def test_update_stamps_the_callers_task_as_stored(store: TaskStore) -> None:
    """The caller's object carries the stamp too: a history row written from it after an
    update shows the same update time as the live state (ListTasks and GetTask agree)."""
    created = _task()
    await store.create(created)
    before = created.updated_at
    await asyncio.sleep(0.002)
    created.status = TaskStatus.RUNNING
    await store.update(created)
    got = await store.get("acme", "task_1")
    assert created.updated_at > before
    assert got.updated_at == created.updated_at


async def test_update_after_terminal_is_refused(store: TaskStore) -> None:
    await store.create(_task())
    task = await store.get("acme", "task_1")
    await store.set_status("acme", "task_1", TaskStatus.CANCELLED, detail="stop")
    task.status = TaskStatus.COMPLETED
    task.final_answer = "late"
    with pytest.raises(TaskAlreadyTerminalError):
        await store.update(task)
    got = await store.get("acme", "task_1")
    assert (got.status, got.final_answer) == (TaskStatus.CANCELLED, "")


async def _append_all(store: TaskStore, task_id: str, n: int) -> list[ev.TaskEvent]:
    return [
        await store.append_event(task_id, "t" * 32, ev.TextDelta("s", f"chunk {i}"))
        for i in range(n)
    ]


async def test_events_get_sequences_from_one_and_replay_after_any_point(store: TaskStore) -> None:
    await store.create(_task())
    written = await _append_all(store, "task_1", 5)
    assert [e.sequence for e in written] == [1, 2, 3, 4, 5]
    await store.append_event(
        "task_1", "t" * 32, ev.StatusChanged(TaskStatus.COMPLETED, TaskStatus.RUNNING)
    )
    every = [e async for e in store.read_events("acme", "task_1")]
    assert [e.sequence for e in every] == [1, 2, 3, 4, 5, 6]
    assert every[2].payload == ev.TextDelta("s", "chunk 2")
    assert every[-1].terminal
    after = [e.sequence async for e in store.read_events("acme", "task_1", 3)]
    assert after == [4, 5, 6]
    assert [e async for e in store.read_events("acme", "task_1", 6)] == []
    assert (await store.get("acme", "task_1")).last_sequence == 6


async def test_readers_follow_live_until_the_terminal_event(store: TaskStore) -> None:
    await store.create(_task())
    await _append_all(store, "task_1", 2)

    async def writer() -> None:
        for i in range(3):
            await asyncio.sleep(0.02)
            await store.append_event("task_1", "t" * 32, ev.TextDelta("s", f"live {i}"))
        await store.append_event(
            "task_1", "t" * 32, ev.StatusChanged(TaskStatus.FAILED, TaskStatus.RUNNING)
        )

    task = asyncio.create_task(writer())
    seen = [e async for e in store.read_events("acme", "task_1")]
    await task
    assert [e.sequence for e in seen] == [1, 2, 3, 4, 5, 6]
    assert seen[-1].terminal


async def test_concurrent_writers_never_share_a_sequence(store: TaskStore) -> None:
    await store.create(_task())
    results = await asyncio.gather(*(_append_all(store, "task_1", 20) for _ in range(5)))
    sequences = sorted(e.sequence for batch in results for e in batch)
    assert sequences == list(range(1, 101))


async def test_events_of_other_tenants_and_unknown_tasks(store: TaskStore) -> None:
    await store.create(_task())
    with pytest.raises(TaskNotFoundError):
        _ = [e async for e in store.read_events("globex", "task_1")]
    with pytest.raises(TaskNotFoundError):
        _ = [e async for e in store.read_events("acme", "nope")]
    with pytest.raises(TaskNotFoundError):
        await store.append_event("nope", "t" * 32, ev.TextDelta("s", "x"))


async def test_hostile_content_round_trips_unchanged(store: TaskStore) -> None:
    odd = {
        "__t": "Task",
        "__d": 1,
        "nested": [{"__e": "TaskStatus", "v": "x"}],
        "emoji": "😀\u0000",
    }
    task = Task(task_id="task_odd", tenant="acme", owner="o", goal="\x00 odd", context=odd)
    await store.create(task)
    assert (await store.get("acme", "task_odd")).context == odd
    await store.append_event("task_odd", "t" * 32, ev.ToolCallStarted("c", "s", "json_query", odd))
    [event] = [e async for e in _first(store.read_events("acme", "task_odd"))]
    assert isinstance(event.payload, ev.ToolCallStarted)
    assert event.payload.arguments == odd


async def _first(events: AsyncIterator[ev.TaskEvent]) -> AsyncIterator[ev.TaskEvent]:
    async for event in events:
        yield event
        return


async def test_the_terminal_event_closes_the_log(store: TaskStore) -> None:
    await store.create(_task())
    await store.append_event(
        "task_1", "t" * 32, ev.StatusChanged(TaskStatus.CANCELLED, TaskStatus.RUNNING)
    )
    with pytest.raises(TaskAlreadyTerminalError):
        await store.append_event("task_1", "t" * 32, ev.TextDelta("s", "late"))
    assert [e.sequence async for e in store.read_events("acme", "task_1")] == [1]


@pytest.mark.redis
async def test_a_live_task_stored_before_the_goal_was_named_so_loads() -> None:
    """A task the previous version kept in Redis (its goal under the key "task") loads
    with its goal after an upgrade."""
    import json
    import secrets

    import redis.asyncio as redis

    from records import serialization
    from stores.tasks.redis import RedisTaskStore
    from tests.contract.conftest import REDIS_URL, drop_prefix

    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    try:
        store = RedisTaskStore(client, prefix=prefix, poll_seconds=0.1, retention_seconds=60)
        await store.create(_task())
        before = json.loads(serialization.dumps(_task()))
        assert before["task"] == "sum the numbers"  # the shape every version writes and reads
        assert "goal" not in before
        await client.hset(f"{prefix}task:task_1", "data", json.dumps(before))
        assert (await store.get("acme", "task_1")).goal == "sum the numbers"
    finally:
        await drop_prefix(client, prefix)
        await client.aclose()


async def test_input_parts_are_kept_as_references(store: TaskStore) -> None:
    parts = (
        InputPart("shot.png", "image/png", size=1000, sha256="ab" * 32, width=4, height=3),
        InputPart(
            "a.pdf", "application/pdf", size=9, sha256="cd" * 32, source_uri="https://x.io/a"
        ),
    )
    task = _task()
    task.input_parts = parts
    await store.create(task)
    assert (await store.get("acme", "task_1")).input_parts == parts
