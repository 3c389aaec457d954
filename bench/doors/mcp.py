"""An MCP tool call against native `Execute`, in one run on one server: the round trip of
the same task (an agent answering at once in 20 chunks), interleaved call by call.

One agentd in this process (auth off, SQLite, in-process task store) and its MCP door
(`server.mcp`) on a loopback uvicorn, behind a stand-in for the address's guard that
hands it the anonymous caller as auth off does. The MCP side is the official client
(2026-07-28, one connection reused), calling the agent with a progress callback (the
answer streams as SSE with a notification per step) and without one (one JSON answer);
the native side reads `Execute`'s stream to its end. Target: MCP within 1.5x.
Loops are bounded in count and time.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import mcp_types as types
import uvicorn
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from agent.feed import TaskFeed
from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from core.identity import ANONYMOUS, CallContext, Principal
from server import logs
from server.app import AgentdServer
from server.http.door import CALL
from server.mcp.door import mcp_door
from server.services.tasks import TaskService
from server.settings import Settings
from server.wiring.agents import start_agents
from server.wiring.builders import build_conversations

RUNS = 150
TIME_CAP_SECONDS = 40.0
REPLY = {"text": "The answer is forty-two, as computed in full. " * 4, "chunks": 20, "repeat": -1}
AGENT = "id: bench\ndescription: Answers.\nmode: function_calling\n"
TARGET = 1.5


class _Anonymous:
    """The guard's promise with auth off: every request is the anonymous caller's."""

    def __init__(self, app: ASGIApp, principal: Principal) -> None:
        self._app = app
        self._principal = principal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope.setdefault("state", {})[CALL] = CallContext(self._principal)
        await self._app(scope, receive, send)


@contextlib.asynccontextmanager
async def _door(server: AgentdServer) -> AsyncIterator[str]:
    """The MCP door over the server's engine on a free loopback port; its URL."""
    settings, durable, live = server.settings, server.durable, server.live
    background: list[asyncio.Task[None]] = []
    service = TaskService(
        server.engine,
        TaskFeed(server.tasks, durable.history),
        build_conversations(settings, durable, live, server.tasks),
        live.idempotency,
        key_ttl_seconds=600,
    )
    agents = start_agents(settings, durable.agents, background)
    door = mcp_door(settings, server.engine, service, agents, server.registry)
    app = Starlette(routes=list(door.routes()), lifespan=lambda _: door.running())
    anonymous = Principal(ANONYMOUS.id, ANONYMOUS.tenant, tuple(settings.anonymous_roles))
    config = uvicorn.Config(
        _Anonymous(app, anonymous), host="127.0.0.1", port=0, log_level="error", access_log=False
    )
    http = uvicorn.Server(config)
    serving = asyncio.create_task(http.serve())
    try:
        for _ in range(500):  # at most 5 s
            if http.started or serving.done():
                break
            await asyncio.sleep(0.01)
        assert http.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{http.servers[0].sockets[0].getsockname()[1]}/mcp"
    finally:
        http.should_exit = True
        await serving
        for job in background:
            job.cancel()
        await asyncio.gather(*background, return_exceptions=True)


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
                database_url=f"sqlite+aiosqlite:///{workspace / 'agentd.db'}",
            )
            server = await AgentdServer.start(settings)
            try:
                async with _door(server) as url:
                    found = await _figures(f"127.0.0.1:{server.port}", url)
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
