"""Steering a task (`SteerTask`) in one engine on the in-process stores: where a steer
lands in what the model is sent (after the results of the calls being made, before the
next model request; never earlier), in order, after a person's approval for a task that
waits for one, and once more after an answer the model was giving when it came."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agent.engine import Engine
from agent.limits import EngineConfig
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text, tool_calls
from agent.parts import EngineParts
from core.errors import IdempotencyConflictError, TaskAlreadyTerminalError
from core.identity import CallContext, Principal
from records import events as ev
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.requests import TaskRequest
from records.tasks import TaskStatus
from records.tools.approvals import ApprovalDecision
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.tasks.memory import InMemoryTaskStore

CALLER = CallContext(Principal("alice", "acme", ("approver",)))
FC = ExecutionMode.FUNCTION_CALLING


class GateTool(Tool):
    """Waits until the test opens its gate; counts the calls waiting at it."""

    spec = ToolSpec(
        name="gate",
        description="Wait for the gate, then echo n.",
        parameters={"type": "object", "properties": {"n": {"type": "integer"}}},
        category="test",
        permission=PermissionLevel.NONE,
        risk=RiskLevel.LOW,
        idempotent=True,
        timeout_seconds=10.0,
    )

    def __init__(self) -> None:
        self.waiting = 0
        self.gate = asyncio.Event()

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        self.waiting += 1
        await self.gate.wait()
        return ToolOutput({"n": arguments.get("n")}, f"gate {arguments.get('n')}")


class Recorder:
    """A scripted model that keeps every request's messages."""

    def __init__(self, *replies: ModelResponse | asyncio.Event) -> None:
        self.replies = list(replies)
        self.requests: list[list[Message]] = []
        self.asked = asyncio.Event()

    async def __call__(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], s: ModelSettings
    ) -> ModelResponse:
        self.requests.append(list(messages))
        self.asked.set()
        reply = self.replies.pop(0)
        while isinstance(reply, asyncio.Event):  # hold the reply until the test says
            await reply.wait()
            reply = self.replies.pop(0)
        return reply


def engine_with(
    tmp_path: Path,
    model: Recorder,
    tool: Tool,
    store: InMemoryTaskStore | None = None,
    **settings: Any,
) -> Engine:
    registry = build_registry(
        Settings(workspace_dir=tmp_path, tool_permission="write", **settings),
        InMemoryAuditLog(),
    )
    registry.register(tool)
    return Engine(
        ModelRoles(default=FunctionModel(model)),
        registry,
        EngineParts(store or InMemoryTaskStore()),
        EngineConfig(),
    )


async def until(condition: Any, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.005)


async def ended(engine: Engine, task_id: str) -> list[ev.TaskEvent]:
    async with asyncio.timeout(10):
        return [e async for e in engine.events("acme", task_id)]


async def approval_asked(engine: Engine, task_id: str) -> str:
    """The call id of the approval the task asked for (its log so far)."""
    task = await engine.find("acme", task_id)
    async for event in engine.events("acme", task_id):
        if isinstance(event.payload, ev.ApprovalRequested):
            return event.payload.call_id
        assert event.sequence < task.last_sequence, "no approval asked"
    raise AssertionError("no approval asked")


def said(messages: list[Message]) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in messages if m.role != "system"]


async def test_a_steer_lands_after_the_batch_and_before_the_next_model_request(
    tmp_path: Path,
) -> None:
    gate = GateTool()
    model = Recorder(tool_calls(("gate", {"n": 1}), ("gate", {"n": 2})), text("Done."))
    engine = engine_with(tmp_path, model, gate)
    task = await engine.start(TaskRequest("compare the figures", mode=FC), CALLER)
    await until(lambda: gate.waiting == 2)  # both calls of the batch run
    _, first = await engine.steer(CALLER, task.task_id, "also check the March figures")
    _, second = await engine.steer(CALLER, task.task_id, "and April")
    assert first.sequence < second.sequence
    gate.gate.set()
    events = await ended(engine, task.task_id)

    assert len(model.requests) == 2
    assert "also check the March figures" not in str(said(model.requests[0]))
    assert said(model.requests[1])[-4:] == [
        ("tool", "gate 1"),
        ("tool", "gate 2"),
        ("user", "also check the March figures"),
        ("user", "and April"),
    ]
    kinds = [type(e.payload).__name__ for e in events]
    applied = [e.payload for e in events if isinstance(e.payload, ev.SteerApplied)]
    assert [a.steer_sequence for a in applied] == [first.sequence, second.sequence]
    last_result = max(i for i, k in enumerate(kinds) if k == "ToolCallFinished")
    assert kinds.index("SteerApplied") > last_result
    assert (await engine.find("acme", task.task_id)).status is TaskStatus.COMPLETED
    await engine.close()


async def test_a_steer_that_comes_while_the_model_answers_sends_it_round_again(
    tmp_path: Path,
) -> None:
    hold = asyncio.Event()
    model = Recorder(hold, text("Revenue rose."), text("Revenue rose; March was flat."))
    engine = engine_with(tmp_path, model, GateTool())
    task = await engine.start(TaskRequest("how did revenue do?", mode=FC), CALLER)
    await asyncio.wait_for(model.asked.wait(), 5)
    await engine.steer(CALLER, task.task_id, "what about March?")
    hold.set()
    await ended(engine, task.task_id)

    assert said(model.requests[1])[-2:] == [
        ("assistant", "Revenue rose."),
        ("user", "what about March?"),
    ]
    done = await engine.find("acme", task.task_id)
    assert done.final_answer == "Revenue rose; March was flat."
    await engine.close()


async def test_a_task_waiting_for_approval_keeps_waiting_and_takes_the_steer_after(
    tmp_path: Path,
) -> None:
    model = Recorder(tool_calls(("calculator", {"expression": "6*7"})), text("42."))
    engine = engine_with(tmp_path, model, GateTool(), approval_tools=["calculator"])
    task = await engine.start(TaskRequest("what is 6*7?", mode=FC), CALLER)
    await until(lambda: engine.running_count() == 0)  # parked, waiting for a person
    waiting = await engine.find("acme", task.task_id)
    assert waiting.status is TaskStatus.INPUT_REQUIRED
    await engine.steer(CALLER, task.task_id, "show your working")
    await asyncio.sleep(0.05)
    assert (await engine.find("acme", task.task_id)).status is TaskStatus.INPUT_REQUIRED
    assert len(model.requests) == 1  # the steer woke nothing

    call_id = await approval_asked(engine, task.task_id)
    await engine.approve(CALLER, task.task_id, call_id, ApprovalDecision(True, "bob"))
    await ended(engine, task.task_id)
    assert said(model.requests[1])[-2:] == [("tool", "42"), ("user", "show your working")]
    await engine.close()


async def test_a_steer_to_an_ended_task_names_its_state(tmp_path: Path) -> None:
    engine = engine_with(tmp_path, Recorder(text("Hi.")), GateTool())
    task = await engine.start(TaskRequest("hello", mode=FC), CALLER)
    await ended(engine, task.task_id)
    with pytest.raises(TaskAlreadyTerminalError) as refused:
        await engine.steer(CALLER, task.task_id, "one more thing")
    assert refused.value.status == "completed"
    assert "completed" in str(refused.value)
    await engine.close()


async def test_a_retried_steer_is_the_first_one(tmp_path: Path) -> None:
    gate = GateTool()
    engine = engine_with(tmp_path, Recorder(tool_calls(("gate", {"n": 1})), text("ok")), gate)
    task = await engine.start(TaskRequest("wait", mode=FC), CALLER)
    await until(lambda: gate.waiting == 1)
    _, first = await engine.steer(CALLER, task.task_id, "faster", "key-1")
    _, again = await engine.steer(CALLER, task.task_id, "faster", "key-1")
    assert again.sequence == first.sequence
    assert again.payload == first.payload
    with pytest.raises(IdempotencyConflictError):
        await engine.steer(CALLER, task.task_id, "slower", "key-1")
    gate.gate.set()
    events = await ended(engine, task.task_id)
    assert sum(isinstance(e.payload, ev.TaskSteered) for e in events) == 1
    await engine.close()


async def test_plan_and_execute_steps_after_a_steer_carry_it(tmp_path: Path) -> None:
    gate = GateTool()
    plan = (
        '{"steps": [{"id": "a", "description": "wait", "tool": "gate", "arguments": {"n": 1}},'
        ' {"id": "b", "description": "sum up", "depends_on": ["a"]}]}'
    )
    verdict = '{"accuracy": 1, "completeness": 1, "relevance": 1, "logic": 1, "decision": "accept"}'
    model = Recorder(text(plan), text("summed"), text(verdict), text("The answer."))
    engine = engine_with(tmp_path, model, gate)
    request = TaskRequest("two steps", mode=ExecutionMode.PLAN_AND_EXECUTE)
    task = await engine.start(request, CALLER)
    await until(lambda: gate.waiting == 1)
    await engine.steer(CALLER, task.task_id, "in euros, please")
    gate.gate.set()
    await ended(engine, task.task_id)
    planner, executor, critic, synthesizer = model.requests
    assert "in euros, please" not in str(said(planner))
    assert "in euros, please" in executor[-1].content
    assert "in euros, please" in str(said(critic))
    assert "in euros, please" in str(said(synthesizer))
    await engine.close()


async def test_a_steer_lands_without_any_nudge(tmp_path: Path) -> None:
    """Another engine on the same store steers the task and tells nobody (its steer bus
    reaches no other replica): the run finds the steer in the log by itself."""
    store, gate = InMemoryTaskStore(), GateTool()
    model = Recorder(tool_calls(("gate", {"n": 1})), text("Done."))
    running = engine_with(tmp_path, model, gate, store)
    elsewhere = engine_with(tmp_path, Recorder(), GateTool(), store)
    task = await running.start(TaskRequest("work", mode=FC), CALLER)
    await until(lambda: gate.waiting == 1)
    await elsewhere.steer(CALLER, task.task_id, "and mind the budget")
    gate.gate.set()
    await ended(running, task.task_id)
    assert said(model.requests[1])[-2:] == [("tool", "gate 1"), ("user", "and mind the budget")]
    await running.close()
    await elsewhere.close()
