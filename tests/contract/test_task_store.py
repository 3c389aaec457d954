"""The TaskStore contract, run against every backend.

Only the in-memory store exists so far; the durable backends join the
`store` fixture's parameters when they land.
"""

from __future__ import annotations

import asyncio

import pytest

from agent.memory_task_store import InMemoryTaskStore
from agent.task_store import TaskStore
from agent.tasks import StopReason, Task, TaskStatus
from core.errors import TaskAlreadyTerminalError, TaskNotFoundError


@pytest.fixture(params=["memory"])
def store(request: pytest.FixtureRequest) -> TaskStore:
    assert request.param == "memory"
    return InMemoryTaskStore()


def _task(task_id: str = "task_1", tenant: str = "acme") -> Task:
    return Task(
        task_id=task_id, tenant=tenant, owner="alice", task="sum the numbers", context={"n": [1, 2]}
    )


async def test_create_then_get(store: TaskStore) -> None:
    await store.create(_task())
    got = await store.get("acme", "task_1")
    assert (got.task_id, got.owner, got.task, got.context) == (
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
