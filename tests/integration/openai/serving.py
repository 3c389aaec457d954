"""The OpenAI door of an in-process agentd server, served on 127.0.0.1 behind a stand-in
of the HTTP address's guard (it puts the anonymous caller on each request, as the guard
puts the authenticated one: `server.http.door.CALL`). Test code only: until the HTTP
address serves the doors, this builds the door from the server's own parts as its wiring
does."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

from agent.definitions.catalog import Agents
from agent.definitions.files import AgentFiles
from agent.feed import TaskFeed
from core.identity import ANONYMOUS, CallContext, Principal, new_trace_id
from server.app import AgentdServer
from server.http.door import CALL
from server.openai.door import OpenAIDoor
from server.services.tasks import TaskService
from server.wiring.builders import build_conversations


class PlaysTheGuard:
    """Every request comes from the anonymous caller (an approver, as with auth off)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            caller = Principal(ANONYMOUS.id, ANONYMOUS.tenant, ("approver",))
            scope.setdefault("state", {})[CALL] = CallContext(caller, new_trace_id())
        await self._app(scope, receive, send)


def door_of(server: AgentdServer, agents_dir: Path) -> OpenAIDoor:
    settings = server.settings
    conversations = build_conversations(settings, server.durable, server.live, server.tasks)
    tasks = TaskService(
        server.engine,
        TaskFeed(server.tasks, server.durable.history),
        conversations,
        server.live.idempotency,
        key_ttl_seconds=3600,
    )
    files = AgentFiles(agents_dir)
    files.load()
    return OpenAIDoor(server.engine, tasks, conversations, Agents(server.durable.agents, files))


class _Quiet(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self):  # type: ignore[no-untyped-def]
        yield


@contextlib.asynccontextmanager
async def serving(door: OpenAIDoor) -> AsyncIterator[str]:
    """The door on a free loopback port; its base URL (`http://127.0.0.1:N/v1`)."""
    app = PlaysTheGuard(Starlette(routes=list(door.routes())))
    bound = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # Accepted connections inherit it: without, a response's second write waits for the
    # client's delayed ACK (40 ms a call on a kept-alive connection).
    bound.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    bound.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
    server = _Quiet(config)
    task = asyncio.create_task(server.serve(sockets=[bound]))
    try:
        while not server.started:
            assert not task.done(), "the door's server did not start"
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{bound.getsockname()[1]}/v1"
    finally:
        server.should_exit = True
        await task
        bound.close()
