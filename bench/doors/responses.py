"""The OpenAI door against the native contract, in one run on one server: a Responses
round trip (`responses.create`, `store: false`, the official `openai` client) against the
same task over gRPC `Execute` read to its end, interleaved call by call. Target: the
Responses round trip within 1.5x of Execute's (p50).

One agentd in this process (auth off, SQLite, in-process task store) on a scripted model
that answers at once in 20 chunks. Until the HTTP address (AGENTD_HTTP_ADDRESS) serves the
doors, the door is served here on 127.0.0.1 behind a stand-in of its guard (the caller put
on each request), built from the server's parts as the address's wiring builds it; the
guard's own work (authentication, rate limits, one audit record) is not in the figure.
Loops are bounded in count and time.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import grpc
import openai
import uvicorn
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from agent.definitions.catalog import Agents
from agent.definitions.files import AgentFiles
from agent.feed import TaskFeed
from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import tasks_pb2
from core.identity import ANONYMOUS, CallContext, new_trace_id
from server import logs
from server.app import AgentdServer
from server.http.door import CALL
from server.openai.door import OpenAIDoor
from server.services.tasks import TaskService
from server.settings import Settings
from server.wiring.builders import build_conversations

RUNS = 150
TIME_CAP_SECONDS = 40.0
REPLY = {"text": "The answer is forty-two, as computed in full. " * 4, "chunks": 20, "repeat": -1}
AGENT = "id: bench\nmode: function_calling\n"


class _Guard:
    """The guard's stand-in: every request comes from the anonymous caller."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope.setdefault("state", {})[CALL] = CallContext(ANONYMOUS, new_trace_id())
        await self._app(scope, receive, send)


def _door(server: AgentdServer, agents: Path) -> OpenAIDoor:
    conversations = build_conversations(server.settings, server.durable, server.live, server.tasks)
    feed = TaskFeed(server.tasks, server.durable.history)
    tasks = TaskService(
        server.engine, feed, conversations, server.live.idempotency, key_ttl_seconds=3600
    )
    files = AgentFiles(agents)
    files.load()
    return OpenAIDoor(server.engine, tasks, conversations, Agents(server.durable.agents, files))


@contextlib.asynccontextmanager
async def _served(door: OpenAIDoor) -> AsyncIterator[str]:
    bound = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # Accepted connections inherit it: without, a response's second write waits for the
    # client's delayed ACK (40 ms a call on a kept-alive connection).
    bound.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    bound.bind(("127.0.0.1", 0))
    app = _Guard(Starlette(routes=list(door.routes())))
    config = uvicorn.Config(app, log_level="error", lifespan="off", access_log=False)
    server = uvicorn.Server(config)
    running = asyncio.create_task(server.serve(sockets=[bound]))
    try:
        while not server.started:  # noqa: ASYNC110 - uvicorn says so by this flag only
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{bound.getsockname()[1]}/v1"
    finally:
        server.should_exit = True
        await running
        bound.close()


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
                database_url=f"sqlite+aiosqlite:///{workspace / 'agentd.db'}",
            )
            server = await AgentdServer.start(settings)
            try:
                async with _served(_door(server, agents)) as base_url:
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
