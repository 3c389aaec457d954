"""Runs' durable traces, recorded by one engine on the in-memory stores: each model call
(its messages as sent, kept once each per task, its parameters, reply, usage and time),
each tool call (its result, redacted, and the keyed hash of its arguments), cut to the
caps, and whole when the task's end is seen."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent.engine import Engine
from agent.limits import EngineConfig
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text, tool_calls
from agent.parts import EngineParts
from agent.recording import capture
from agent.recording.recorder import Recorder
from agent.recording.traces import DEFAULT_ARGUMENTS_KEY, Traces
from core.identity import CallContext, Principal
from records import events as ev
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolCall, ToolDefinition
from records.requests import TaskRequest
from records.tasks import Task
from records.tools.invocation import Invocation
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.tools.outcomes import ToolCallResult
from records.traces.model import (
    ModelCallTrace,
    ToolCallTrace,
    ToolSource,
    TraceEntry,
    TracePage,
    arguments_key,
)
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.tasks.memory import InMemoryTaskStore
from stores.traces.memory import InMemoryTraceStore

CALLER = CallContext(Principal("alice", "acme", ("analyst",)))
SECRET = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"


class Lookup(Tool):
    """Returns a record with a credential in it."""

    spec = ToolSpec(
        name="lookup",
        description="Look a thing up.",
        parameters={"type": "object", "properties": {"n": {"type": "integer"}}},
        category="test",
        permission=PermissionLevel.NONE,
        risk=RiskLevel.LOW,
        idempotent=True,
        timeout_seconds=5.0,
    )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        n = arguments.get("n")
        return ToolOutput({"n": n, "token": SECRET}, f"found {n} with key {SECRET}")


def looping(calls: int) -> FunctionModel:
    """Calls `lookup` `calls` times, one per reply, then answers."""

    def reply(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        done = sum(1 for m in messages if m.role == "tool")
        if done < calls:
            return tool_calls(("lookup", {"n": done}))
        return text(f"the answer after {done} lookups")

    return FunctionModel(reply)


def engine_of(tmp_path: Path, calls: int, traces: Traces) -> Engine:
    registry = build_registry(
        Settings(workspace_dir=tmp_path, tool_permission="write"), InMemoryAuditLog()
    )
    registry.register(Lookup())
    return Engine(
        ModelRoles(default=looping(calls)),
        registry,
        EngineParts(InMemoryTaskStore(), traces=traces),
        EngineConfig(),
    )


async def run_task(engine: Engine, iterations: int = 10) -> str:
    request = TaskRequest(
        "look things up", mode=ExecutionMode.FUNCTION_CALLING, max_iterations=iterations
    )
    task = await engine.start(request, CALLER)
    async with asyncio.timeout(10):
        events = [e async for e in engine.events("acme", task.task_id)]
    assert isinstance(events[-1].payload, ev.StatusChanged)
    return task.task_id


async def whole(store: InMemoryTraceStore, task_id: str) -> TracePage:
    return await store.page(task_id, "", 10_000)


async def test_a_finished_task_has_its_whole_trace_when_its_end_is_seen(tmp_path: Path) -> None:
    store = InMemoryTraceStore()
    engine = engine_of(tmp_path, 3, Traces(store))

    task_id = await run_task(engine)  # read at once: no drain

    page = await whole(store, task_id)
    models = [e.detail for e in page.entries if isinstance(e.detail, ModelCallTrace)]
    tools = [e.detail for e in page.entries if isinstance(e.detail, ToolCallTrace)]
    assert len(models) == 4
    assert len(tools) == 3
    assert models[-1].reply_text == "the answer after 3 lookups"
    assert [c.name for c in models[0].reply_tool_calls] == ["lookup"]
    assert models[0].tools
    assert "lookup" in models[0].tools
    assert models[0].usage.prompt_tokens == 10
    assert models[0].latency_seconds >= 0
    assert models[0].parameters["tool_choice"] == "auto"
    messages = {m.message_id: m for m in page.messages}
    sent = [messages[i] for i in models[-1].message_ids]  # every id names a kept message
    assert [m.role for m in sent][-2:] == ["assistant", "tool"]
    assert "look things up" in "".join(m.content for m in sent)
    head = await store.head(task_id)
    assert head is not None
    assert head.entries == 7
    assert not head.cut
    assert head.owner.user == "alice"
    assert head.owner.tenant == "acme"
    assert head.owner.task == "look things up"


async def test_a_tool_result_is_kept_redacted_with_the_hash_of_its_arguments(
    tmp_path: Path,
) -> None:
    store = InMemoryTraceStore()
    engine = engine_of(tmp_path, 1, Traces(store))

    task_id = await run_task(engine)

    page = await whole(store, task_id)
    call = next(e.detail for e in page.entries if isinstance(e.detail, ToolCallTrace))
    assert call.tool == "lookup"
    assert call.arguments == {"n": 0}
    assert call.source is ToolSource.LIVE
    assert call.arguments_key == arguments_key(DEFAULT_ARGUMENTS_KEY, "lookup", {"n": 0})
    assert call.result_text.startswith("found 0 with key ")
    assert SECRET not in call.result_text
    assert SECRET not in str(call.result)
    assert call.result["n"] == 0
    assert all(SECRET not in m.content for m in page.messages)  # the tool message too


async def test_each_message_is_kept_once_per_task(tmp_path: Path) -> None:
    store = InMemoryTraceStore()
    engine = engine_of(tmp_path, 8, Traces(store))

    task_id = await run_task(engine)

    page = await whole(store, task_id)
    models = [e.detail for e in page.entries if isinstance(e.detail, ModelCallTrace)]
    named = sum(len(m.message_ids) for m in models)
    # Nine calls send 2, 4, ..., 18 messages (90 in all): kept are the 18 distinct ones.
    assert named == 90
    assert len(page.messages) == len({i for m in models for i in m.message_ids}) == 18


async def test_records_beyond_the_limit_are_cut_and_marked(tmp_path: Path) -> None:
    store = InMemoryTraceStore()
    engine = engine_of(tmp_path, 1, Traces(store, max_record_bytes=24))

    task_id = await run_task(engine)

    page = await whole(store, task_id)
    call = next(e for e in page.entries if isinstance(e.detail, ToolCallTrace))
    assert call.cut
    assert isinstance(call.detail, ToolCallTrace)
    assert call.detail.result_text.endswith("…[cut]")
    assert len(call.detail.result_text.encode()) <= 24
    assert any(m.cut for m in page.messages)


async def test_a_task_beyond_its_cap_keeps_its_first_entries_and_is_marked_cut(
    tmp_path: Path,
) -> None:
    store = InMemoryTraceStore()
    engine = engine_of(tmp_path, 8, Traces(store, max_task_bytes=3_000))

    task_id = await run_task(engine)

    head = await store.head(task_id)
    assert head is not None
    assert head.cut
    assert 0 < head.entries < 17
    assert head.bytes <= 3_000
    page = await whole(store, task_id)
    kept: list[TraceEntry] = list(page.entries)
    assert isinstance(kept[0].detail, ModelCallTrace)  # the first, not the last


async def test_a_model_calls_span_names_its_trace_entry(tmp_path: Path) -> None:
    """The `llm` span of each model call carries the id of the call's entry in the trace
    and the task's id (the process's tracer provider, or one installed for the test,
    feeding an in-memory exporter)."""
    exporter = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    store = InMemoryTraceStore()
    engine = engine_of(tmp_path, 1, Traces(store))

    task_id = await run_task(engine)

    page = await whole(store, task_id)
    calls = [e.entry_id for e in page.entries if isinstance(e.detail, ModelCallTrace)]
    named = [s.attributes for s in exporter.get_finished_spans() if s.name.startswith("llm ")]
    exporter.clear()
    linked = [a for a in named if a is not None and a.get("agentd.task_id") == task_id]
    assert [a.get("agentd.trace.entry_id") for a in linked] == calls


async def test_no_trace_is_kept_without_traces(tmp_path: Path) -> None:
    store = InMemoryTraceStore()
    registry = build_registry(Settings(workspace_dir=tmp_path), InMemoryAuditLog())
    engine = Engine(ModelRoles(default=looping(0)), registry, EngineParts(InMemoryTaskStore()))

    task_id = await run_task(engine)

    assert await store.head(task_id) is None


def verdict(n: int, feedback: str) -> ev.ReflectionVerdict:
    return ev.ReflectionVerdict(f"s{n}", 1, 1, 1, 1, 1, True, "accept", feedback)


async def test_a_later_run_of_a_task_counts_what_its_runs_before_kept_against_the_cap() -> None:
    """A woken or taken-over run goes on from the task's trace: the cap is the task's, and
    a trace cut stays cut (each run counting from nothing would keep a cap per run)."""
    store = InMemoryTraceStore()
    traces = Traces(store, max_task_bytes=2_000)
    recorder = Recorder(traces)
    task = Task("task_capped", "acme", "ann", "go")
    first = recorder.for_run(task, fresh=True)
    for n in range(6):
        first.event(verdict(n, "x" * 200))
    await recorder.drain()
    kept = await store.head(task.task_id)
    assert kept is not None
    assert not kept.cut
    assert 1_000 < kept.bytes <= 2_000

    later = recorder.for_run(task)
    await later.resume()
    for n in range(6, 12):
        later.event(verdict(n, "x" * 200))
    await recorder.drain()
    head = await store.head(task.task_id)
    assert head is not None
    assert head.cut
    assert head.bytes <= 2_000

    again = recorder.for_run(task)
    await again.resume()  # cut stays cut: nothing more is kept
    again.event(verdict(99, "late"))
    await recorder.drain()
    last = await store.head(task.task_id)
    assert last == head


def test_what_a_hostile_model_sends_is_kept_clean_and_never_raises() -> None:
    """Lone surrogates (JSON escapes a model may write) are replaced before anything is
    kept, the arguments' hash still takes them; arguments nested past what can be walked
    are kept as their scrubbed text."""
    odd = "bad \udc00 value"
    invocation = Invocation.of("lookup", {"q": odd})
    result = ToolCallResult(invocation.call_id, "lookup", {"echo": odd}, f"got {odd}", 0.1)
    traced, _ = capture.tool_call(invocation, result, DEFAULT_ARGUMENTS_KEY, 65_536)
    assert traced.arguments == {"q": "bad \ufffd value"}
    assert traced.result == {"echo": "bad \ufffd value"}
    assert traced.result_text == "got bad \ufffd value"
    assert len(traced.arguments_key) == 64
    kept = capture.message(Message("user", f"hello {odd}"), 65_536)
    assert kept.content == "hello bad \ufffd value"
    deep = "[" * 50_000 + "]" * 50_000
    calls, _ = capture.requests((ToolCall("c1", "lookup", deep),), 65_536)
    assert calls[0].arguments_json.startswith("[[[")
