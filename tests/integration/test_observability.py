"""Traces (in-memory exporter) and the Prometheus endpoint, through the real server."""

from __future__ import annotations

import asyncio
import io
import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from opentelemetry import propagate, trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from server import logs
from server.wiring.startup import start_metrics
from tests.integration.harness import assert_well_formed
from tests.integration.trust import trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
REPLIES = [
    {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]},
    {"text": "42"},
]
EXPORTER = InMemorySpanExporter()
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
TRACEPARENT = f"00-{TRACE_ID}-b7ad6b7169203331-01"


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """The process's tracer provider (installed once: OpenTelemetry allows one) feeding an
    in-memory exporter, emptied for each test."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(provider)
    EXPORTER.clear()
    yield EXPORTER
    EXPORTER.clear()


async def test_one_trace_from_the_client_through_rpc_llm_and_tool_spans(
    tmp_path: Path, spans: InMemorySpanExporter
) -> None:
    async with trusted(tmp_path, REPLIES) as t:
        tracer = trace.get_tracer("gateway")
        with tracer.start_as_current_span("gateway request", kind=SpanKind.CLIENT) as client_span:
            carrier: dict[str, str] = {}
            propagate.inject(carrier)
            alice = await t.client("acme", "alice", metadata=list(carrier.items()))
            await t.grant("acme", "principal:alice", "calculator", "read")
            events = [e async for e in alice.execute("what is 6*7?", mode=FC)]
        assert_well_formed(events)
        trace_id = client_span.get_span_context().trace_id
        hex_id = format(trace_id, "032x")
        assert {e.trace_id for e in events} == {hex_id}

        finished = spans.get_finished_spans()
        by_name = {s.name: s for s in finished}
        server = by_name["agentd.v1.AgentService/Execute"]
        assert server.kind == SpanKind.SERVER
        assert server.parent is not None
        assert server.parent.span_id == client_span.get_span_context().span_id
        assert server.attributes is not None
        assert server.attributes["rpc.grpc.status_code"] == "OK"
        llm = [s for s in finished if s.name.startswith("llm ")]
        tools = [s for s in finished if s.name == "tool calculator"]
        assert len(llm) == 2
        assert len(tools) == 1
        for span in (server, *llm, *tools):
            assert span.context is not None
            assert span.context.trace_id == trace_id
        assert llm[0].attributes is not None
        assert llm[0].attributes["agentd.task_id"] == events[0].task_id


async def test_a_call_without_traceparent_starts_a_trace_of_its_own(
    tmp_path: Path, spans: InMemorySpanExporter
) -> None:
    async with trusted(tmp_path) as t:
        alice = await t.client("acme", "alice")
        await t.grant("acme", "principal:alice", "calculator", "read")
        await alice.call_tool("calculator", {"expression": "1+1"})
        await alice.call_tool("calculator", {"expression": "2+2"})
        rpc = [s for s in spans.get_finished_spans() if s.name.endswith("/CallTool")]
        tool = [s for s in spans.get_finished_spans() if s.name == "tool calculator"]
        assert len(rpc) == 2
        assert all(s.parent is None for s in rpc)
        assert rpc[0].context is not None
        assert rpc[1].context is not None
        assert rpc[0].context.trace_id != rpc[1].context.trace_id
        for server_span, tool_span in zip(rpc, tool, strict=True):
            assert tool_span.parent is not None
            assert server_span.context is not None
            assert tool_span.parent.span_id == server_span.context.span_id
        records = await t.rpc_records()
        assert [r.trace_id for r in records] == [
            format(s.context.trace_id, "032x") for s in rpc if s.context is not None
        ]


SERIES = (
    "agentd_tasks_started_total",
    "agentd_tasks_finished_total",
    "agentd_task_duration_seconds_bucket",
    "agentd_tasks_in_flight",
    "agentd_tool_calls_total",
    "agentd_tool_call_duration_seconds_bucket",
    "agentd_llm_calls_total",
    "agentd_llm_tokens_total",
    "agentd_reflections_total",
    "agentd_rpcs_total",
    "agentd_rpc_duration_seconds_bucket",
    "agentd_task_iterations_bucket",
    "agentd_tasks_stopped_total",
    "agentd_model_calls_total",
    "agentd_model_call_duration_seconds_bucket",
    "agentd_model_tokens_total",
)


async def test_the_metrics_endpoint_exposes_the_series_after_a_run(tmp_path: Path) -> None:
    async with trusted(tmp_path, REPLIES) as t:
        endpoint = start_metrics("127.0.0.1:0")
        assert endpoint is not None
        try:
            alice = await t.client("acme", "alice")
            await t.grant("acme", "principal:alice", "calculator", "read")
            events = [e async for e in alice.execute("what is 6*7?", mode=FC)]
            assert_well_formed(events)
            url = f"http://{endpoint.address}/metrics"
            body = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read())
        finally:
            endpoint.stop()
    text = body.decode()
    for series in SERIES:
        assert f"\n{series}" in text, series
    assert 'agentd_tasks_finished_total{mode="function_calling",status="completed"}' in text
    assert 'agentd_tool_calls_total{outcome="ok",tool="calculator"}' in text
    assert 'agentd_rpcs_total{code="OK",method="/agentd.v1.AgentService/Execute"}' in text
    assert 'agentd_llm_tokens_total{kind="prompt",role=' in text
    assert 'agentd_reflections_total{passed="true"}' in text
    assert 'agentd_tasks_stopped_total{agent="default",stop_reason="final_answer"}' in text
    ok_call = r'\{agent="default",model="[^"]+",outcome="ok",provider="default"\} [1-9]'
    model_calls = "agentd_model_calls_total" + ok_call
    assert re.search(model_calls, text)


async def test_log_lines_carry_trace_task_and_principal_and_never_a_credential(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sink = io.StringIO()
    monkeypatch.setattr("sys.stderr", sink)
    logs.configure("info", "json")
    try:
        async with trusted(tmp_path, REPLIES) as t:
            alice = await t.client("acme", "alice", metadata=[("traceparent", TRACEPARENT)])
            await t.grant("acme", "principal:alice", "calculator", "read")
            events = [e async for e in alice.execute("what is 6*7?", mode=FC)]
            with pytest.raises(client_errors.TaskNotFoundError):
                await alice.get_task("task_unknown")
            key = alice._metadata[-1][1]
    finally:
        structlog.reset_defaults()
    output = sink.getvalue()
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    (ended,) = [line for line in lines if line["event"] == "task ended"]
    assert ended["task_id"] == events[0].task_id
    assert ended["trace_id"] == TRACE_ID
    assert (ended["principal"], ended["tenant"]) == ("alice", "acme")
    assert ended["prompt_tokens"] > 0  # token counts are not mistaken for secrets
    (failed,) = [line for line in lines if line["event"] == "call failed"]
    assert (failed["trace_id"], failed["principal"]) == (TRACE_ID, "alice")
    assert key.removeprefix("Bearer ") not in output
