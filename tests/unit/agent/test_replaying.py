"""A replay's tool calls at the one door (`agent.tool_use.replaying`): answered from a
recorded trace (written here straight into the in-memory trace store), never run when
they write, live only for read-only tools under READ_ONLY; and the divergence report
kept on the task when it ends."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.definitions.catalog import Agents
from agent.engine import Engine
from agent.limits import EngineConfig, ToolLimits
from agent.llm.roles import ModelRoles
from agent.llm.testing import ScriptedModel, text, tool_calls
from agent.parts import EngineParts
from agent.recording.traces import Traces
from agent.tool_use.divergence import CallShape, divergence
from agent.tool_use.replaying import from_recording
from core.identity import CallContext
from records import events as ev
from records import serialization
from records.agents.definition import AgentDefinition
from records.execution import ExecutionMode
from records.requests import TaskRequest
from records.tasks import Task, TaskStatus
from records.tools.invocation import Invocation
from records.tools.outcomes import ToolErrorKind
from records.traces.model import (
    ToolCallTrace,
    ToolSource,
    TraceEntry,
    TraceOwner,
    arguments_key,
    entry_id,
)
from records.traces.replays import DivergenceKind, ReplayInfo, ReplayTools
from stores.traces.memory import InMemoryTraceStore
from tests.unit.agent.runs import PRINCIPAL, Env, make_env

SOURCE = "task_recorded"
WRITE = {"path": "out.txt", "content": "hello"}
KEY = Traces(InMemoryTraceStore()).arguments_key


def _call(n: int, tool: str, arguments: dict[str, Any], text_: str, result: Any) -> TraceEntry:
    trace = ToolCallTrace(
        call_id=f"c{n}",
        tool=tool,
        arguments=arguments,
        arguments_key=arguments_key(KEY, tool, arguments),
        result_text=text_,
        result=result,
    )
    return TraceEntry(SOURCE, entry_id(n, n), "s", datetime.now(UTC), trace)


async def _recorded(*entries: TraceEntry) -> InMemoryTraceStore:
    store = InMemoryTraceStore()
    owner = TraceOwner(SOURCE, "acme", PRINCIPAL.id, SOURCE, "", "", "go", datetime.now(UTC))
    await store.write(owner, entries, ())
    return store


class _Files:
    """Agents as a folder of files would give them."""

    def __init__(self, *agents: AgentDefinition) -> None:
        self._agents = {a.agent_id: a for a in agents}

    def get(self, agent_id: str) -> AgentDefinition | None:
        return self._agents.get(agent_id)

    def all(self) -> list[AgentDefinition]:
        return list(self._agents.values())


async def _replay(
    env: Env,
    store: InMemoryTraceStore,
    model: ScriptedModel,
    tools: tuple[str, ...],
    mode: ReplayTools = ReplayTools.RECORDED,
    recorded_answer: str = "written",
    agent: AgentDefinition | None = None,
) -> Task:
    agents = Agents(None, _Files(agent)) if agent is not None else None
    engine = Engine(
        ModelRoles(default=model),
        env.registry,
        EngineParts(env.store, traces=Traces(store), agents=agents),
        env.config,
    )
    replay = ReplayInfo(SOURCE, mode, recorded_answer=recorded_answer)
    request = TaskRequest(
        "go",
        tools=tools,
        mode=ExecutionMode.FUNCTION_CALLING,
        replay=replay,
        agent=agent.agent_id if agent is not None else "",
    )
    task = await engine.start(request, CallContext(PRINCIPAL))
    async with asyncio.timeout(10):  # a call that waited (for a person, a child) fails here
        async for event in engine.events("acme", task.task_id):
            payload = event.payload
            if isinstance(payload, ev.StatusChanged) and payload.current.terminal:
                break
    ended = await engine.find("acme", task.task_id)
    assert ended.status is TaskStatus.COMPLETED
    return ended


async def _sources(store: InMemoryTraceStore, task: Task) -> list[ToolSource]:
    """Where the replay's traced tool calls' results came from, in order."""
    page = await store.page(task.task_id, "", 100)
    return [e.detail.source for e in page.entries if isinstance(e.detail, ToolCallTrace)]


async def _results(env: Env, task: Task) -> list[ev.ToolCallFinished]:
    found: list[ev.ToolCallFinished] = []
    async for event in env.store.read_events("acme", task.task_id):
        if isinstance(event.payload, ev.ToolCallFinished):
            found.append(event.payload)
        if event.sequence >= task.last_sequence:
            break
    return found


async def test_a_recorded_write_is_answered_from_the_recording_and_not_run(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    store = await _recorded(_call(1, "write_file", WRITE, "wrote 5 bytes", {"bytes": 5}))
    model = ScriptedModel([tool_calls(("write_file", WRITE)), text("written")])
    task = await _replay(env, store, model, ("write_file",))
    assert not (tmp_path / "workspace" / "out.txt").exists()  # nothing was written
    (finished,) = await _results(env, task)
    assert finished.text == "wrote 5 bytes"
    assert finished.result == {"bytes": 5}
    report = task.replay
    assert report is not None
    assert report.ended
    assert not report.diverged
    assert (report.recorded_calls, report.not_run_calls, report.live_calls) == (1, 0, 0)
    assert await _sources(store, task) == [ToolSource.RECORDED]  # traced as answered


async def test_a_call_with_other_arguments_is_not_run_and_the_report_says_where(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    store = await _recorded(_call(1, "write_file", WRITE, "wrote 5 bytes", {"bytes": 5}))
    other = {"path": "other.txt", "content": "bye"}
    model = ScriptedModel([tool_calls(("write_file", other)), text("written")])
    task = await _replay(env, store, model, ("write_file",))
    assert not (tmp_path / "workspace" / "other.txt").exists()
    (finished,) = await _results(env, task)
    assert finished.text.startswith("not run during a replay: write_file writes")
    report = task.replay
    assert report is not None
    assert report.divergence is not None
    assert report.divergence.kind is DivergenceKind.TOOL_CALL
    assert report.divergence.index == 0
    assert '"other.txt"' in report.divergence.replayed
    assert '"out.txt"' in report.divergence.recorded
    assert (report.recorded_calls, report.not_run_calls) == (0, 1)


async def test_read_only_runs_a_read_only_tool_live_but_never_a_write(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    store = await _recorded()  # the recording made no call
    post = {"url": "http://127.0.0.1:9/x", "method": "POST"}
    model = ScriptedModel(
        [
            tool_calls(("calculator", {"expression": "6*7"}), ("write_file", WRITE)),
            tool_calls(("http_request", post)),
            text("42"),
        ]
    )
    task = await _replay(
        env, store, model, ("calculator", "write_file", "http_request"), ReplayTools.READ_ONLY
    )
    calculated, written, posted = await _results(env, task)
    assert calculated.error is None
    assert "42" in calculated.text
    assert written.text.startswith("not run during a replay")
    assert posted.text.startswith("not run during a replay: http_request writes")
    assert not (tmp_path / "workspace" / "out.txt").exists()
    report = task.replay
    assert report is not None
    assert report.divergence is not None
    assert report.divergence.kind is DivergenceKind.TOOL_CALL  # the recording had none
    assert (report.recorded_calls, report.not_run_calls, report.live_calls) == (0, 2, 1)
    traced = await _sources(store, task)
    assert sorted(s.value for s in traced) == ["live", "not_run", "not_run"]


async def test_recorded_mode_runs_not_even_a_read_only_tool(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    store = await _recorded()
    model = ScriptedModel([tool_calls(("calculator", {"expression": "6*7"})), text("42")])
    task = await _replay(env, store, model, ("calculator",), recorded_answer="42")
    (calculated,) = await _results(env, task)
    assert calculated.text.startswith("not run during a replay: the recording has no call")
    assert task.replay is not None
    assert task.replay.live_calls == 0


async def test_fewer_calls_are_a_missing_call_and_another_answer_is_an_answer(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    store = await _recorded(_call(1, "write_file", WRITE, "wrote 5 bytes", {"bytes": 5}))
    task = await _replay(env, store, ScriptedModel([text("nothing")]), ("write_file",))
    assert task.replay is not None
    assert task.replay.divergence is not None
    assert task.replay.divergence.kind is DivergenceKind.MISSING_CALL
    model = ScriptedModel([tool_calls(("write_file", WRITE)), text("something else")])
    task = await _replay(env, store, model, ("write_file",))
    assert task.replay is not None
    assert task.replay.divergence is not None
    assert task.replay.divergence.kind is DivergenceKind.ANSWER
    assert task.replay.divergence.recorded == "written"
    assert task.replay.divergence.replayed == "something else"


def test_divergence_compares_calls_in_order_then_the_answer() -> None:
    a, b = CallShape.of("t", "k1", {"x": 1}), CallShape.of("t", "k2", {"x": 2})
    assert divergence([a, b], [a, b], "yes", "yes") is None
    first = divergence([a, b], [a, a], "yes", "yes")
    assert first is not None
    assert (first.kind, first.index) == (DivergenceKind.TOOL_CALL, 1)
    assert first.recorded == 't {"x":2}'
    assert first.replayed == 't {"x":1}'
    extra = divergence([a], [a, b], "yes", "yes")
    assert extra is not None
    assert (extra.kind, extra.index, extra.recorded) == (
        DivergenceKind.TOOL_CALL,
        1,
        "",
    )
    missing = divergence([a, b], [a], "yes", "yes")
    assert missing is not None
    assert missing.kind is DivergenceKind.MISSING_CALL
    answer = divergence([a], [a], "yes", "no")
    assert answer is not None
    assert answer.kind is DivergenceKind.ANSWER


def test_a_replay_report_is_kept_with_the_task() -> None:
    report = ReplayInfo(SOURCE, ReplayTools.READ_ONLY, "a", True, None, 1, 2, 3)
    task = Task(task_id="t", tenant="acme", owner="alice", goal="go", replay=report)
    again = serialization.loads(serialization.dumps(task))
    assert again.replay == report
    plain = Task(task_id="t", tenant="acme", owner="alice", goal="go")
    assert '"replay"' not in serialization.dumps(plain)  # stored as before when unused


def test_calls_of_one_reply_are_compared_as_a_set_not_in_the_order_they_finished() -> None:
    a = CallShape.of("write_file", "k1", {"path": "a"}, "step-1")
    b = CallShape.of("http_request", "k2", {"url": "u"}, "step-1")
    c = CallShape.of("calculator", "k3", {"expression": "1"}, "step-2")
    later_a = CallShape.of("write_file", "k1", {"path": "a"}, "s1")
    later_b = CallShape.of("http_request", "k2", {"url": "u"}, "s1")
    later_c = CallShape.of("calculator", "k3", {"expression": "1"}, "s2")
    # the recording kept them as they finished; the replay as the model asked
    assert divergence([b, a, c], [later_a, later_b, later_c], "x", "x") is None
    swapped = divergence([a, c], [later_c, later_a], "x", "x")  # other turns: order counts
    assert swapped is not None
    assert (swapped.kind, swapped.index) == (DivergenceKind.TOOL_CALL, 0)


async def test_ask_user_is_answered_from_the_recording_and_nobody_is_asked(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    question = {"question": "Which colour?"}
    store = await _recorded(_call(1, "ask_user", question, "blue", "blue"))
    asker = AgentDefinition("asker", ask_user=True, tools=())
    model = ScriptedModel([tool_calls(("ask_user", question)), text("blue it is")])
    task = await _replay(env, store, model, (), recorded_answer="blue it is", agent=asker)
    (answered,) = await _results(env, task)
    assert answered.text == "blue"
    async for event in env.store.read_events("acme", task.task_id):
        assert not isinstance(event.payload, ev.InputRequested)  # nothing waited
        if event.sequence >= task.last_sequence:
            break
    assert task.replay is not None
    assert not task.replay.diverged
    assert task.replay.recorded_calls == 1


def test_a_recorded_resumable_failure_replays_as_a_plain_failure() -> None:
    """Nothing in a replay waits for a person's ResumeTask: the recorded call's resumable
    error comes back as a failure the model sees (the run does not park)."""
    recorded = ToolCallTrace(
        call_id="call_1",
        tool="lookup",
        arguments={"q": "x"},
        arguments_key="k",
        result_text="the server asks for a new token",
        result=None,
        error_kind=ToolErrorKind.RESUMABLE.value,
        error="the server asks for a new token",
    )
    result = from_recording(Invocation.of("lookup", {"q": "x"}, "call_9"), recorded)
    assert result.error is not None
    assert result.error.kind is ToolErrorKind.FAILED
    assert (result.call_id, result.text) == ("call_9", "the server asks for a new token")


async def test_a_recorded_artifact_write_announces_no_artifact(tmp_path: Path) -> None:
    """The recording's write_artifact result names the artifact the recorded task wrote;
    the replay wrote none, so it says no artifact_updated of it."""
    written = {"name": "report.md", "content": "# hi"}
    data = {
        "name": "report.md",
        "version": 1,
        "media_type": "text/markdown",
        "size": 4,
        "writer_task_id": SOURCE,
    }
    env = make_env(tmp_path)
    store = await _recorded(_call(1, "write_artifact", written, "wrote report.md v1", data))
    model = ScriptedModel([tool_calls(("write_artifact", written)), text("written")])
    task = await _replay(env, store, model, ("write_artifact",))
    kinds: list[str] = []
    async for event in env.store.read_events("acme", task.task_id):
        kinds.append(event.payload.type)
        if event.sequence >= task.last_sequence:
            break
    assert "tool_call_finished" in kinds
    assert "artifact_updated" not in kinds
    assert await _sources(store, task) == [ToolSource.RECORDED]


async def test_read_only_runs_the_tools_an_operator_lists_live_and_a_listed_http_get(
    tmp_path: Path,
) -> None:
    """AGENTD_REPLAY_READ_ONLY_TOOLS: a listed tool runs live under READ_ONLY, and a
    listed http_request runs live for a GET (through its own destination rules) but never
    for a POST."""
    listed = ToolLimits(replay_read_only_tools=("send_message", "http_request"))
    env = make_env(tmp_path, EngineConfig(tools=listed))
    store = await _recorded()
    get = {"url": "http://127.0.0.1:9/x", "method": "GET"}
    post = {"url": "http://127.0.0.1:9/x", "method": "POST"}
    model = ScriptedModel(
        [
            tool_calls(("send_message", {"to": "ann"})),
            tool_calls(("http_request", get)),
            tool_calls(("http_request", post)),
            text("done"),
        ]
    )
    tools = ("send_message", "http_request")
    task = await _replay(env, store, model, tools, ReplayTools.READ_ONLY, "done")
    sent, got, posted = await _results(env, task)
    assert env.send.sent == ["ann"]  # the listed tool ran
    assert sent.text == "sent to ann"
    # the GET went the live way: http_request's own destination rules refused it (in process)
    assert got.text.startswith("refused (DESTINATION_NOT_ALLOWED)"), got.text
    assert posted.text.startswith("not run during a replay: http_request writes")
    assert await _sources(store, task) == [ToolSource.LIVE, ToolSource.LIVE, ToolSource.NOT_RUN]
