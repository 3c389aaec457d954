"""CallTool overhead: agentd's full path against a bare grpc.aio server, in one run.

Both servers run in this process on 127.0.0.1 and answer the same request
messages with the same response messages. The bare server returns a
prebuilt response; agentd runs the interceptors, the servicer, the registry
(policy, schema validation, timeout, audit) and the calculator. The ratio
is what the service adds on top of gRPC itself. Loops are bounded in count
and time.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import struct_pb2
from sqlalchemy import func, select

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from records.keys import new_key
from records.tools.grants import Grant, new_grant_id
from records.tools.model import PermissionLevel
from server import logs
from server.app import AgentdServer
from server.settings import Settings
from stores.sql.schema import rpc_audit, tool_call_audit
from tools.permissions import GrantPolicy

CALLS = 2_000
TIME_CAP_SECONDS = 30.0
CONCURRENCY = 8


def _request() -> pb.CallToolRequest:
    args = struct_pb2.Struct()
    args.update({"expression": "(17 + 25) * 3 / 7"})
    return pb.CallToolRequest(tool_name="calculator", arguments=args)


def bare_handler(response: pb.CallToolResponse) -> grpc.GenericRpcHandler[Any, Any]:
    """AgentService/CallTool that decodes the request and returns a prebuilt response."""

    async def call_tool(request: pb.CallToolRequest, context: Any) -> pb.CallToolResponse:
        return response

    method = grpc.unary_unary_rpc_method_handler(
        call_tool,
        request_deserializer=pb.CallToolRequest.FromString,
        response_serializer=pb.CallToolResponse.SerializeToString,
    )
    return grpc.method_handlers_generic_handler("agentd.v1.AgentService", {"CallTool": method})


async def _measure(address: str, key: str = "") -> tuple[float, list[float]]:
    """Calls per second (concurrent) and single-call latencies in ms."""
    request = _request()
    metadata = (("authorization", f"Bearer {key}"),) if key else ()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.AgentServiceStub(channel)
        for _ in range(50):  # warm up
            await stub.CallTool(request, metadata=metadata)
        latencies: list[float] = []
        deadline = time.perf_counter() + TIME_CAP_SECONDS / 2
        for _ in range(CALLS // 2):
            start = time.perf_counter()
            await stub.CallTool(request, metadata=metadata)
            latencies.append((time.perf_counter() - start) * 1000)
            if time.perf_counter() > deadline:
                break
        done = 0
        stop_at = time.perf_counter() + TIME_CAP_SECONDS / 2

        async def worker() -> None:
            nonlocal done
            while done < CALLS and time.perf_counter() < stop_at:
                done += 1
                await stub.CallTool(request, metadata=metadata)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        rate = done / (time.perf_counter() - start)
    return rate, latencies


async def main() -> None:
    logs.configure("error")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            address="127.0.0.1:0",
            workspace_dir=Path(tmp),
            log_level="error",
            database_url=f"sqlite+aiosqlite:///{Path(tmp) / 'agentd.db'}",
            rate_limits="*=1000000/s",  # limits checked on every call, never reached
            metrics_address="",
        )
        # The production path: auth on (an API key checked on every call), a grant checked,
        # the RPC traced, counted, rate limited and audited, the tool call audited.
        agentd = await AgentdServer.start(settings)
        key, plaintext = new_key("bench", "bench", ())
        await agentd.durable.api_keys.add(key)
        await agentd.durable.grants.add(
            Grant(
                grant_id=new_grant_id(),
                tenant="bench",
                subject="principal:bench",
                tool="calculator",
                level=PermissionLevel.READ,
                created_at=key.created_at,
            )
        )
        assert isinstance(agentd.registry.policy, GrantPolicy)
        await agentd.registry.policy.refresh(agentd.durable.grants)
        auth = (("authorization", f"Bearer {plaintext}"),)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{agentd.port}") as channel:
            response = await pb_grpc.AgentServiceStub(channel).CallTool(_request(), metadata=auth)
            stored = await _stored_before_reply(agentd, pb_grpc.AgentServiceStub(channel), auth)
        bare = grpc.aio.server()
        bare.add_generic_rpc_handlers((bare_handler(response),))
        bare_port = bare.add_insecure_port("127.0.0.1:0")
        await bare.start()
        try:
            bare_rate, bare_lat = await _measure(f"127.0.0.1:{bare_port}")
            agentd_rate, agentd_lat = await _measure(f"127.0.0.1:{agentd.port}", plaintext)
        finally:
            await bare.stop(0)
            await agentd.shutdown(grace=0)
    bare_p50, agentd_p50 = statistics.median(bare_lat), statistics.median(agentd_lat)
    print("CallTool(calculator) on loopback, client and server in one process")
    print(f"  bare grpc.aio   p50 {bare_p50:.3f} ms   {bare_rate:,.0f} calls/s (x{CONCURRENCY})")
    print(
        f"  agentd          p50 {agentd_p50:.3f} ms   {agentd_rate:,.0f} calls/s (x{CONCURRENCY})"
    )
    latency_ratio = agentd_p50 / bare_p50
    print(
        f"  agentd / bare:  latency x{latency_ratio:.2f}, "
        f"throughput at {CONCURRENCY} callers {agentd_rate / bare_rate:.0%}"
    )
    print(f"  added per call: {agentd_p50 - bare_p50:.3f} ms (p50)")
    print(f"  both audit records stored when the reply came: {stored}/{CHECKED} calls checked")


CHECKED = 20


async def _stored_before_reply(agentd: AgentdServer, stub: Any, auth: Any) -> int:
    """How many of CHECKED calls found, as soon as their reply came, their tool-call
    record and one more RPC record in the database."""
    engine = agentd.durable.database.engine

    async def rows() -> tuple[set[str], int]:
        async with engine.connect() as connection:
            calls = (await connection.execute(select(tool_call_audit.c.call_id))).scalars()
            rpcs = (await connection.execute(select(func.count()).select_from(rpc_audit))).scalar()
            return set(calls), int(rpcs or 0)

    stored = 0
    for _ in range(CHECKED):
        _, before = await rows()
        response = await stub.CallTool(_request(), metadata=auth)
        calls, after = await rows()
        stored += response.call_id in calls and after == before + 1
    return stored
