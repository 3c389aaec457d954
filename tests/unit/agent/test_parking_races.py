"""Parking against its races, in one engine on the in-process stores: an answer that comes
while the task is still parking wakes it at once, and the woken run is the one the
process tracks (cancellable, counted), not dropped by the end of the run that parked."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from agent.engine import Engine
from agent.limits import EngineConfig
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text, tool_calls
from agent.parts import EngineParts, Replicas
from core.identity import CallContext, Principal
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.requests import TaskRequest
from records.tasks import TaskStatus
from records.waits import WaitKind
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.leases.memory import InMemoryLeases
from stores.tasks.memory import InMemoryTaskStore
from stores.waits.memory import InMemoryWaitStore

CALLER = CallContext(Principal("alice", "acme", ("approver",)))


class AnsweringLeases(InMemoryLeases):
    """Leases whose `park` lets the approval in first: the answer arrives while the task
    parks, before its lease is given up."""

    def __init__(self, waits: InMemoryWaitStore) -> None:
        super().__init__()
        self.waits = waits

    async def park(self, tenant: str, task_id: str) -> None:
        for wait in await self.waits.of_task(task_id):
            answer = {"approved": True, "comment": ""}
            now = datetime.now(UTC)
            await self.waits.answer(tenant, task_id, wait.slot, WaitKind.APPROVAL, answer, "b", now)
        await super().park(tenant, task_id)


async def test_an_answer_during_the_park_wakes_a_run_the_process_tracks(tmp_path: Path) -> None:
    held = asyncio.Event()
    replies = 0

    async def model(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        nonlocal replies
        replies += 1
        if replies == 1:
            return tool_calls(("calculator", {"expression": "6*7"}))
        held.set()
        await asyncio.Event().wait()  # the woken run's model call: held until cancelled
        return text("never")

    waits = InMemoryWaitStore()
    settings = Settings(
        workspace_dir=tmp_path, tool_permission="write", approval_tools=["calculator"]
    )
    engine = Engine(
        ModelRoles(default=FunctionModel(model)),
        build_registry(settings, InMemoryAuditLog()),
        EngineParts(
            InMemoryTaskStore(), replicas=Replicas(leases=AnsweringLeases(waits)), waits=waits
        ),
        EngineConfig(),
    )
    request = TaskRequest("what is 6*7?", mode=ExecutionMode.FUNCTION_CALLING)
    task = await engine.start(request, CALLER)
    await asyncio.wait_for(held.wait(), 5)  # woken at once, asking its model again

    assert engine.running_count() == 1  # the woken run is this process's to track
    cancelled = await engine.cancel("acme", task.task_id, "enough")
    assert cancelled.status is TaskStatus.CANCELLED
    await asyncio.sleep(0.05)
    assert engine.running_count() == 0
    await engine.close()
