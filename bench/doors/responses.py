"""The OpenAI door against the native contract, in one run on one server: a Responses
round trip (`responses.create`, `store: false`, the official `openai` client) against the
same task over gRPC `Execute` read to its end, interleaved call by call. Target: the
Responses round trip within 1.5x of Execute's (p50).

One agentd in this process (auth off, SQLite, in-process task store) on a scripted model
that answers at once in 20 chunks, its OpenAI door on its HTTP address (the guard's work:
the caller, rate limits, one RPC audit record a call, as gRPC's interceptors do for
Execute). Loops are bounded in count and time.
"""

from __future__ import annotations

import socket
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc
import openai

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import tasks_pb2
from server import logs
from server.app import AgentdServer
from server.settings import Settings

RUNS = 150
TIME_CAP_SECONDS = 40.0
REPLY = {"text": "The answer is forty-two, as computed in full. " * 4, "chunks": 20, "repeat": -1}
AGENT = "id: bench\nmode: function_calling\n"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def _interleaved(calls: dict[str, Callable[[], Awaitable[None]]]) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in calls}
    begun = time.perf_counter()
    for _ in range(RUNS):
        for name, call in calls.items():
            started = time.perf_counter()
            await call()
            times[name].append(time.perf_counter() - started)
        if time.perf_counter() - begun > TIME_CAP_SECONDS:
            break
    return times


async def _figures(address: str, base_url: str) -> dict[str, list[float]]:
    channel = grpc.aio.insecure_channel(address)
    native = pb_grpc.AgentServiceStub(channel)
    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench")
    mode = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING

    async def execute() -> None:
        request = pb.ExecuteRequest(task="6*7?", mode=mode, agent="bench")
        assert [event async for event in native.Execute(request)]

    async def respond() -> None:
        answer = await client.responses.create(model="agent:bench", input="6*7?", store=False)
        assert answer.status == "completed", answer.status

    try:
        await execute()  # warm: connections, caches
        await respond()
        return await _interleaved({"execute": execute, "responses": respond})
    finally:
        await client.close()
        await channel.close(None)


async def main() -> None:
    logs.configure("error")
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        agents = workspace / "agents"
        agents.mkdir()
        (agents / "bench.yaml").write_text(AGENT)
        port = _free_port()
        async with FakeOpenAIServer([REPLY]) as llm:
            settings = Settings(
                address="127.0.0.1:0",
                workspace_dir=workspace,
                llm_base_url=llm.base_url,
                llm_model="m",
                llm_api_key="k",
                critic_policy="off",
                log_level="error",
                auth="off",
                tool_permission="write",
                rate_limits="",
                tenant_rate_limits="",
                metrics_address="",
                agents_dir=agents,
                http_address=f"127.0.0.1:{port}",
                http_doors=["openai"],
                database_url=f"sqlite+aiosqlite:///{workspace / 'agentd.db'}",
            )
            server = await AgentdServer.start(settings)
            try:
                base_url = f"http://127.0.0.1:{port}/v1"
                found = await _figures(f"127.0.0.1:{server.port}", base_url)
            finally:
                await server.shutdown(grace=0)
    execute, responses = found["execute"], found["responses"]
    native_ms = statistics.median(execute) * 1000
    door_ms = statistics.median(responses) * 1000
    print(f"OpenAI Responses against native Execute (one server, {len(execute)} tasks each)")
    print(
        f"  round trip p50: native Execute {native_ms:.2f} ms, Responses (store: false) "
        f"{door_ms:.2f} ms   ratio {door_ms / native_ms:.2f} (target <= 1.5)"
    )
