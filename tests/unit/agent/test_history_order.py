"""A task's history row says RUNNING before the event that announces it is written, so a
caller that lists by status right after that event finds the task."""

from __future__ import annotations

from pathlib import Path

from agent import events as ev
from agent.engine import Engine
from agent.llm.roles import ModelRoles
from agent.llm.testing import ScriptedModel, text
from agent.requests import TaskRequest
from agent.tasks import ExecutionMode, Task, TaskStatus
from core.identity import CallContext
from stores.history.memory import InMemoryTaskHistory
from tests.unit.agent.runs import PRINCIPAL, make_env


class WatchedHistory(InMemoryTaskHistory):
    """Notes, at each record, the task's status and the sequence of its latest event."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[tuple[TaskStatus, int]] = []

    async def record(self, task: Task) -> None:
        self.records.append((task.status, task.last_sequence))
        await super().record(task)


async def test_running_is_in_the_history_before_its_event(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    history = WatchedHistory()
    engine = Engine(
        ModelRoles(default=ScriptedModel([text("done")])),
        env.registry,
        env.store,
        env.config,
        history=history,
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
