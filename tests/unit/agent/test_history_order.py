"""A task is in the history before the event that announces it runs is written, so a
caller that lists its tasks right after that event finds it: one that runs at once is
recorded RUNNING then, one that waited was recorded PENDING while it waited (ListTasks
shows and filters it by its live state), and the slot it takes waits on no SQL."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from agent.engine import Engine
from agent.limits import Capacity
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, ScriptedModel, text
from agent.parts import EngineParts
from core.identity import CallContext
from records import events as ev
from records.execution import ExecutionMode
from records.messages import ModelResponse
from records.requests import TaskRequest
from records.tasks import Task, TaskStatus
from stores.history.memory import InMemoryTaskHistory
from tests.unit.agent.runs import PRINCIPAL, make_env


class WatchedHistory(InMemoryTaskHistory):
    """Notes, at each record, the task's status and the sequence of its latest event."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[tuple[TaskStatus, int]] = []
        self.by_task: list[tuple[str, TaskStatus]] = []

    async def record(self, task: Task) -> None:
        self.records.append((task.status, task.last_sequence))
        self.by_task.append((task.task_id, task.status))
        await super().record(task)


async def test_running_is_in_the_history_before_its_event(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    history = WatchedHistory()
    engine = Engine(
        ModelRoles(default=ScriptedModel([text("done")])),
        env.registry,
        EngineParts(env.store, history=history),
        env.config,
    )
    task = await engine.start(
        TaskRequest("hi", mode=ExecutionMode.FUNCTION_CALLING), CallContext(PRINCIPAL)
    )
    events = [e async for e in env.store.read_events(PRINCIPAL.tenant, task.task_id)]
    running = next(
        e.sequence
        for e in events
        if isinstance(e.payload, ev.StatusChanged) and e.payload.current is TaskStatus.RUNNING
    )
    recorded = [seq for status, seq in history.records if status is TaskStatus.RUNNING]
    assert recorded  # RUNNING was recorded ...
    assert recorded[0] < running  # ... while the log was still short of its event


async def test_a_task_that_runs_at_once_is_never_recorded_pending(tmp_path: Path) -> None:
    """One history write fewer before a task runs: a task that takes a free slot goes
    straight to RUNNING in the history; a queued one is recorded PENDING while it waits,
    and not again as it starts."""
    env = make_env(tmp_path)
    history = WatchedHistory()
    release = asyncio.Event()

    async def held(*_: object) -> ModelResponse:
        await release.wait()
        return text("done")

    engine = Engine(
        ModelRoles(default=FunctionModel(held)),
        env.registry,
        EngineParts(env.store, history=history),
        replace(env.config, capacity=Capacity(max_running_tasks=1)),
    )
    request = TaskRequest("hi", mode=ExecutionMode.FUNCTION_CALLING)
    first = await engine.start(request, CallContext(PRINCIPAL))
    second = await engine.start(request, CallContext(PRINCIPAL))
    await asyncio.sleep(0.05)
    release.set()
    for task in (first, second):
        [e async for e in env.store.read_events(PRINCIPAL.tenant, task.task_id)]
    await engine.close()
    statuses = {task.task_id: [s for t, s in history.by_task if t == task.task_id]
                for task in (first, second)}  # fmt: skip
    assert statuses[first.task_id] == [TaskStatus.RUNNING, TaskStatus.COMPLETED]
    assert statuses[second.task_id] == [TaskStatus.PENDING, TaskStatus.COMPLETED]
