"""OTLP export: spans reach a collector named by the standard OpenTelemetry variables,
and nothing is exported without one. The collector is a real OTLP/gRPC receiver."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from agentd_client.client import AgentClient
from tests.helpers import server_process

TRACE_ID = "5b8efff798038103d269b633813fc60c"


class Collector(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self) -> None:
        self.spans: list[tuple[str, str]] = []
        self.got_two = asyncio.Event()

    async def Export(
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: object
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                self.spans.extend((s.name, s.trace_id.hex()) for s in scope.spans)
        if len(self.spans) >= 2:
            self.got_two.set()
        return trace_service_pb2.ExportTraceServiceResponse()


@pytest.fixture
async def collector() -> AsyncIterator[tuple[Collector, int]]:
    server = grpc.aio.server()
    receiver = Collector()
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(  # type: ignore[no-untyped-call]
        receiver, server
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    yield receiver, port
    await server.stop(0)


@pytest.mark.parametrize("configured", [True, False])
async def test_spans_are_exported_only_to_a_configured_collector(
    tmp_path: Path, collector: tuple[Collector, int], configured: bool
) -> None:
    receiver, port = collector
    env = {"OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_SERVICE_NAME": "agentd-test"}
    if configured:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = f"http://127.0.0.1:{port}"
        env["OTEL_EXPORTER_OTLP_INSECURE"] = "true"
    with server_process(tmp_path, env) as server:
        traceparent = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
        async with AgentClient(server.address, metadata=[("traceparent", traceparent)]) as client:
            assert (await client.call_tool("calculator", {"expression": "1+1"})).text == "2"
        if configured:
            await asyncio.wait_for(receiver.got_two.wait(), 10)
        else:
            await asyncio.sleep(1.0)  # several export intervals
        serving = next(
            json.loads(line) for line in server.log().splitlines() if '"serving"' in line
        )
        # Without an endpoint no span processor is installed at all: nothing leaves.
        assert serving["traces_exported"] is configured
    if configured:
        assert ("agentd.v1.AgentService/CallTool", TRACE_ID) in receiver.spans
        assert ("tool calculator", TRACE_ID) in receiver.spans
    else:
        assert receiver.spans == []
