"""Per-process capacity: running slots, a bounded queue, and refusal with a retry hint."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from agent.engine import Engine
from agent.limits import Capacity, EngineConfig
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text
from agent.parts import EngineParts
from core.errors import ResourceExhaustedError
from core.identity import CallContext
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.requests import TaskRequest
from records.tasks import Task, TaskStatus
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.history.memory import InMemoryTaskHistory
from stores.tasks.memory import InMemoryTaskStore

REQUEST = TaskRequest(goal="work", mode=ExecutionMode.FUNCTION_CALLING)


def _engine(
    tmp_path: Path,
    release: asyncio.Event,
    store: InMemoryTaskStore,
    config: EngineConfig,
    history: InMemoryTaskHistory | None = None,
) -> Engine:
    """An engine whose model answers only once `release` is set."""

    async def slow(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        await release.wait()
        return text("done")

    registry = build_registry(
        Settings(workspace_dir=tmp_path, tool_permission="write"), InMemoryAuditLog()
    )
    return Engine(
        ModelRoles(default=FunctionModel(slow)),
        registry,
        EngineParts(store, history=history or InMemoryTaskHistory()),
        config,
    )


async def _start_when_room(engine: Engine) -> Task:
    """Start a task, retrying while the process is full (a task's place is given back
    just after its last event, once its history row is written)."""
    for _ in range(100):
        try:
            return await engine.start(REQUEST, CallContext())
        except ResourceExhaustedError:
            await asyncio.sleep(0.01)
    raise AssertionError("no room within a second of the tasks' end")


async def test_queue_then_refuse(tmp_path: Path) -> None:
    release = asyncio.Event()
    store = InMemoryTaskStore()
    engine = _engine(
        tmp_path,
        release,
        store,
        EngineConfig(capacity=Capacity(max_running_tasks=1, max_queued_tasks=1)),
    )
    first = await engine.start(REQUEST, CallContext())
    second = await engine.start(REQUEST, CallContext())
    await asyncio.sleep(0.05)
    assert (await store.get("default", first.task_id)).status is TaskStatus.RUNNING
    assert (await store.get("default", second.task_id)).status is TaskStatus.PENDING
    with pytest.raises(ResourceExhaustedError) as info:
        await engine.start(REQUEST, CallContext())
    delay = info.value.retry_after_seconds
    assert delay is not None
    assert 0.5 <= delay <= 1.5  # nothing finished yet: about the base second, jittered
    release.set()
    for task in (first, second):
        events = [e async for e in store.read_events("default", task.task_id)]
        assert events[-1].payload.current is TaskStatus.COMPLETED  # type: ignore[union-attr]
    third = await _start_when_room(engine)  # room again, once both have let go
    assert [e async for e in store.read_events("default", third.task_id)][-1].terminal
    await engine.close()


async def test_cancelling_a_queued_task(tmp_path: Path) -> None:
    release = asyncio.Event()
    engine = _engine(
        tmp_path, release, InMemoryTaskStore(), EngineConfig(capacity=Capacity(max_running_tasks=1))
    )
    await engine.start(REQUEST, CallContext())
    queued = await engine.start(REQUEST, CallContext())
    cancelled = await engine.cancel("default", queued.task_id, "not needed")
    assert cancelled.status is TaskStatus.CANCELLED
    release.set()
    await engine.close()


class SlowEndHistory(InMemoryTaskHistory):
    """History whose rows of ended tasks are written only once `release` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def record(self, task: Task) -> None:
        if task.status.terminal:
            await self.release.wait()
        await super().record(task)


async def test_a_slot_is_free_before_the_ended_task_is_in_the_history(tmp_path: Path) -> None:
    """The next queued task runs while the ended one's history row is still being written
    (it follows the terminal event; the slot need not wait for it)."""
    release = asyncio.Event()
    release.set()
    store, history = InMemoryTaskStore(), SlowEndHistory()
    engine = _engine(
        tmp_path, release, store, EngineConfig(capacity=Capacity(max_running_tasks=1)), history
    )
    first = await engine.start(REQUEST, CallContext())
    second = await engine.start(REQUEST, CallContext())
    try:
        for task in (first, second):  # both end while the first one's row still waits
            async with asyncio.timeout(10):
                events = [e async for e in store.read_events("default", task.task_id)]
            assert events[-1].payload.current is TaskStatus.COMPLETED  # type: ignore[union-attr]
    finally:
        history.release.set()
        await engine.close()  # an ended task's row is waited for, never cancelled
    assert (await history.get("default", first.task_id)).status is TaskStatus.COMPLETED
