"""An MCP tool call against native `Execute`, in one run on one server: the round trip of
the same task (an agent answering at once in 20 chunks), interleaved call by call.

One agentd in this process (auth off, SQLite, in-process task store) serving its MCP
door (`server.mcp`) on its HTTP address, behind the address's guard. The MCP side is
the official client (2026-07-28, one connection reused), calling the agent with a
progress callback (the answer streams as SSE with a notification per step) and without
one (one JSON answer); the native side reads `Execute`'s stream to its end. Target: MCP within 1.5x.
Loops are bounded in count and time.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import mcp_types as types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from server import logs
from server.app import AgentdServer
from server.settings import Settings

RUNS = 150
TIME_CAP_SECONDS = 40.0
REPLY = {"text": "The answer is forty-two, as computed in full. " * 4, "chunks": 20, "repeat": -1}
AGENT = "id: bench\ndescription: Answers.\nmode: function_calling\n"
TARGET = 1.5


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


async def _figures(address: str, url: str) -> dict[str, list[float]]:
    channel = grpc.aio.insecure_channel(address)
    native = pb_grpc.AgentServiceStub(channel)
    told: list[str] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        told.append(message or "")

    async def execute() -> None:
        request = pb.ExecuteRequest(task="6*7?", agent="bench")
        assert [event async for event in native.Execute(request)]

    http = create_mcp_http_client()
    try:
        async with Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as mcp:

            async def streamed() -> None:
                result: Any = await mcp.call_tool(
                    "bench", {"task": "6*7?"}, progress_callback=progress
                )
                assert isinstance(result, types.CallToolResult)
                assert not result.is_error, result

            async def answered() -> None:
                result = await mcp.call_tool("bench", {"task": "6*7?"})
                assert not result.is_error, result

            await execute()  # warm: connections, caches
            await answered()
            return await _interleaved(
                {"execute": execute, "mcp": answered, "mcp_progress": streamed}
            )
    finally:
        await channel.close(None)


def _p50_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


async def main() -> None:
    logs.configure("error")
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        (workspace / "agents").mkdir()
        (workspace / "agents" / "bench.yaml").write_text(AGENT)
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
                agents_dir=workspace / "agents",
                http_address="127.0.0.1:0",
                http_doors=["mcp"],
                database_url=f"sqlite+aiosqlite:///{workspace / 'agentd.db'}",
            )
            server = await AgentdServer.start(settings)
            try:
                assert server.http is not None
                found = await _figures(f"127.0.0.1:{server.port}", f"{server.http.url}mcp")
            finally:
                await server.shutdown(grace=0)
    native = _p50_ms(found["execute"])
    print(f"MCP tool call against native Execute (one server, {len(found['execute'])} tasks each)")
    for name, what in (("mcp", "tools/call"), ("mcp_progress", "tools/call with progress")):
        ms = _p50_ms(found[name])
        print(
            f"  round trip p50: native Execute {native:.2f} ms, MCP {what} {ms:.2f} ms   "
            f"ratio {ms / native:.2f} (target within {TARGET}x)"
        )
