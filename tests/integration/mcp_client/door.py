"""The MCP door on a server started in the test's process, behind a stand-in for the HTTP
address's guard (`server.http.door`'s promise: the caller authenticated with agentd's API
keys, 401 before the door otherwise), served by uvicorn on a free loopback port."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from agent.feed import TaskFeed
from auth.authenticator import Authenticator
from core.errors import UnauthenticatedError
from core.identity import CallContext
from server.app import AgentdServer
from server.calls import trace_id_from
from server.http.door import CALL
from server.mcp.door import McpDoor, mcp_door
from server.services.tasks import TaskService
from server.wiring.agents import start_agents
from server.wiring.builders import build_authenticator, build_conversations


class PlayedGuard:
    """Authenticates as the address's guard will; the door's routes behind it."""

    def __init__(self, app: ASGIApp, authenticator: Authenticator) -> None:
        self._app = app
        self._authenticator = authenticator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        request = Request(scope, receive)
        metadata = [(k.lower(), v) for k, v in request.headers.items()]
        try:
            principal = await self._authenticator.authenticate(metadata)
        except UnauthenticatedError:
            refused = JSONResponse({"error": "unauthenticated"}, status_code=401)
            await refused(scope, receive, send)
            return
        trace = trace_id_from([("traceparent", request.headers.get("traceparent", ""))])
        setattr(request.state, CALL, CallContext(principal, trace))
        await self._app(scope, receive, send)


def door_of(server: AgentdServer, background: list[asyncio.Task[None]]) -> McpDoor:
    """The door over the server's engine, as the address's wiring will build it."""
    settings, durable, live = server.settings, server.durable, server.live
    conversations = build_conversations(settings, durable, live, server.tasks)
    service = TaskService(
        server.engine,
        TaskFeed(server.tasks, durable.history),
        conversations,
        live.idempotency,
        key_ttl_seconds=600,
    )
    agents = start_agents(settings, durable.agents, background)
    return mcp_door(settings, server.engine, service, agents, server.registry)


@contextlib.asynccontextmanager
async def served(server: AgentdServer) -> AsyncIterator[str]:
    """The door's URL (`http://127.0.0.1:<port>/mcp`) while it is served."""
    background: list[asyncio.Task[None]] = []
    door = door_of(server, background)
    authenticator = build_authenticator(server.settings, server.durable.api_keys)
    assert authenticator is not None, "the test's servers have auth on"

    def lifespan(app: Any) -> contextlib.AbstractAsyncContextManager[None]:
        return door.running()

    app = Starlette(routes=list(door.routes()), lifespan=lifespan)
    config = uvicorn.Config(
        PlayedGuard(app, authenticator), host="127.0.0.1", port=0, log_level="warning"
    )
    http = uvicorn.Server(config)
    running = asyncio.create_task(http.serve())
    try:
        while not http.started:
            assert not running.done(), "uvicorn did not start"
            await asyncio.sleep(0.01)
        port = http.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        http.should_exit = True
        await running
        for job in background:
            job.cancel()
        await asyncio.gather(*background, return_exceptions=True)
