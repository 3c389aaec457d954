"""ReplayTask's service (`server.services.recorded.replays`) over an in-process engine whose
recorder keeps traces in memory: who may replay a recorded task, what the new task is
(the recorded input and context, the agent, the labels, `Task.replay`), idempotency by
key, and NOT_FOUND (`TRACE_NOT_FOUND`) without a kept trace; and the report as GetTask
shows it (`server.convert`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from agent.engine import Engine
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text
from agent.parts import EngineParts
from agent.recording.traces import Traces
from agentd.v1 import replays_pb2
from core.errors import RoleRequiredError, TaskNotFoundError, TraceNotFoundError
from core.identity import CallContext, Principal
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.requests import TaskRequest
from records.tasks import Task
from records.traces.replays import REPLAY_OF_LABEL, ReplayRequest, ReplayTools
from server.convert import tasks as convert
from server.convert.recorded.replays import replay_request
from server.services.recorded.replays import ReplayService
from stores.traces.memory import InMemoryTraceStore
from tests.unit.agent.runs import make_env

ALICE = CallContext(Principal("alice", "acme", ()))
BOB = CallContext(Principal("bob", "acme", ()))
AUDITOR = CallContext(Principal("carol", "acme", ("auditor",)))
OTHER_TENANT = CallContext(Principal("alice", "globex", ()))


def _answer(
    messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
) -> ModelResponse:
    goal = next(m.content for m in messages if m.role == "user")
    return text(f"answer to {goal}")


async def _ended(engine: Engine, task: Task) -> Task:
    async for event in engine.events(task.tenant, task.task_id):
        if event.terminal:
            break
    return await engine.find(task.tenant, task.task_id)


def _engine(tmp_path: Path, traces: bool = True) -> Engine:
    env = make_env(tmp_path)
    kept = Traces(InMemoryTraceStore()) if traces else None
    return Engine(
        ModelRoles(default=FunctionModel(_answer)),
        env.registry,
        EngineParts(env.store, traces=kept),
        env.config,
    )


async def _recorded(engine: Engine) -> Task:
    request = TaskRequest("summarise", context={"doc": 7}, mode=ExecutionMode.FUNCTION_CALLING)
    return await _ended(engine, await engine.start(request, ALICE))


async def test_the_owner_replays_its_task_as_a_new_task_that_names_it(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        recorded = await _recorded(engine)
        replays = ReplayService(engine)
        request = ReplayRequest(recorded.task_id, tools=ReplayTools.READ_ONLY, labels={"a": "b"})
        started = await replays.replay(request, ALICE)
        assert started.task_id != recorded.task_id
        assert (started.goal, started.context) == ("summarise", {"doc": 7})
        assert started.mode is ExecutionMode.FUNCTION_CALLING
        assert started.labels == {"a": "b", REPLAY_OF_LABEL: recorded.task_id}
        assert started.conversation_id == ""  # never a turn of a conversation
        ended = await _ended(engine, started)
        assert ended.replay is not None
        assert ended.replay.source_task_id == recorded.task_id
        assert ended.replay.tools is ReplayTools.READ_ONLY
        assert ended.replay.ended
        assert not ended.replay.diverged  # the same answer, no calls
        shown = convert.task_to_proto(ended).replay
        assert (shown.source_task_id, shown.tools, shown.diverged) == (
            recorded.task_id,
            replays_pb2.REPLAY_TOOLS_READ_ONLY,
            False,
        )
    finally:
        await engine.close()


async def test_another_user_needs_an_auditor_role_and_another_tenant_finds_nothing(
    tmp_path: Path,
) -> None:
    engine = _engine(tmp_path)
    try:
        recorded = await _recorded(engine)
        replays = ReplayService(engine)
        with pytest.raises(RoleRequiredError):
            await replays.replay(ReplayRequest(recorded.task_id), BOB)
        with pytest.raises(TaskNotFoundError):
            await replays.replay(ReplayRequest(recorded.task_id), OTHER_TENANT)
        by_auditor = await replays.replay(ReplayRequest(recorded.task_id), AUDITOR)
        assert by_auditor.owner == "carol"  # the replay is the caller's task
    finally:
        await engine.close()


async def test_a_retry_with_the_same_key_gets_the_same_replay(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        recorded = await _recorded(engine)
        replays = ReplayService(engine)
        request = ReplayRequest(recorded.task_id, idempotency_key="nightly-1")
        first = await replays.replay(request, ALICE)
        again = await replays.replay(request, ALICE)
        assert again.task_id == first.task_id
        other = await replays.replay(ReplayRequest(recorded.task_id), ALICE)
        assert other.task_id != first.task_id
    finally:
        await engine.close()


async def test_without_a_kept_trace_a_task_is_trace_not_found(tmp_path: Path) -> None:
    engine = _engine(tmp_path, traces=False)
    try:
        recorded = await _recorded(engine)
        with pytest.raises(TraceNotFoundError):
            await ReplayService(engine).replay(ReplayRequest(recorded.task_id), ALICE)
    finally:
        await engine.close()


def test_a_request_reads_its_tools_and_labels() -> None:
    read = replay_request(
        replays_pb2.ReplayTaskRequest(task_id="t", agent="lead@2", labels={"k": "v"})
    )
    assert (read.task_id, read.agent, read.tools, dict(read.labels)) == (
        "t",
        "lead@2",
        ReplayTools.RECORDED,
        {"k": "v"},
    )
    only = replays_pb2.ReplayTaskRequest(task_id="t", tools=replays_pb2.REPLAY_TOOLS_READ_ONLY)
    assert replay_request(only).tools is ReplayTools.READ_ONLY
