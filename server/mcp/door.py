"""The MCP door of the HTTP address: `/mcp`, streamable HTTP by the official `mcp` SDK's
server side, stateless (no session is kept: any replica answers any request, a
2026-07-28 request and a handshake-era one alike), answering in JSON or SSE as the SDK
does (SSE once a call has progress to tell).

tools/list shows the agents the caller may use (`server.mcp.catalog`); tools/call of one
runs an agentd task (`server.mcp.calls`). The SDK implements no MCP tasks (`tasks/*`):
a long call holds its request open, streaming progress, until its task ends or waits for
a person (docs/mcp-server.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from agent.definitions.catalog import Agents
from agent.engine import Engine
from agent.guardrails.runs import Guards
from core.errors import AgentdError
from core.keyring import KeyRing
from server.http.door import audited, call_of, jsonrpc_method
from server.mcp.calls import AgentCalls, Context, error_result
from server.mcp.catalog import INPUT_SCHEMA, AgentTools
from server.mcp.own_tools import PREFIX, OwnTools
from server.services.tasks import TaskService
from server.settings import Settings
from tools.registry import ToolRegistry

PATH = "/mcp"
INSTRUCTIONS = (
    "Each tool is an agentd agent: give it a task (and optionally a context object); it "
    "plans, calls tools and answers. A call that needs a person's approval or answer "
    "returns input_required (2026-07-28 clients) or names the task waiting in agentd's inbox."
)


def method_of_body(body: bytes) -> str:
    """The JSON-RPC method of a request body; "invalid" when it names none."""
    return jsonrpc_method(body) or "invalid"


def _input_schema(name: str) -> dict[str, Any] | None:
    """A tool's input schema for the SDK's `Mcp-Param-*` header check, without running the
    caller's tools/list before every call: every agent's is the same (an own tool's is
    not checked: it declares no such header either)."""
    return None if name.startswith(PREFIX) else INPUT_SCHEMA


class McpDoor:
    """The MCP server on the HTTP address (`server.http.door.Door`)."""

    name = "mcp"
    service = "mcp"

    def __init__(
        self,
        engine: Engine,
        tasks: TaskService,
        agents: Agents,
        registry: ToolRegistry,
        ring: KeyRing,
        *,
        own_tools: bool = False,
        guards: Guards | None = None,
        version: str = "",
    ) -> None:
        self._catalog = AgentTools(agents, registry)
        self._calls = AgentCalls(engine, tasks, agents, self._catalog, ring)
        self._own = OwnTools(registry, guards) if own_tools else None
        """agentd's own tools (AGENTD_MCP_TOOLS), else None."""
        self.server: Server[Any] = Server(
            "agentd",
            version=version,
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            get_tool_input_schema=_input_schema,
        )
        self._manager = StreamableHTTPSessionManager(app=self.server, stateless=True)
        self._app = StreamableHTTPASGIApp(self._manager)

    def routes(self) -> Sequence[BaseRoute]:
        return [Route(PATH, self._app, methods=["GET", "POST", "DELETE"])]

    def method_of(self, request: Request, body: bytes) -> str:
        if request.method != "POST":
            return request.method  # GET (a stream stateless HTTP does not keep), DELETE
        return method_of_body(body)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The SDK's session manager, run in a task of its own: its anyio task group (where
        every request's server runs) is entered and left in that one task, whichever
        tasks enter and leave this (the address enters it starting, leaves it stopping)."""
        started, stop = asyncio.Event(), asyncio.Event()

        async def hold() -> None:
            async with self._manager.run():
                started.set()
                await stop.wait()

        held = asyncio.create_task(hold(), name="agentd-mcp-sessions")
        waiting = asyncio.create_task(started.wait())
        await asyncio.wait({held, waiting}, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if held.done():
            await held  # it failed to start: its error
        try:
            yield
        finally:
            stop.set()
            await held

    def starts_task(self, method: str) -> bool:
        return method == "tools/call"

    async def _list_tools(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        request = ctx.request
        assert isinstance(request, Request), "the MCP server runs behind the HTTP address"
        call = call_of(request)
        tools = await self._catalog.listed(call)
        if self._own is not None:
            tools += self._own.listed(call)
        audited(request, "OK")
        return types.ListToolsResult(tools=tools)

    async def _call_tool(
        self, ctx: Context, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        if self._own is None or not params.name.startswith(PREFIX):
            return await self._calls.call(ctx, params)
        request = ctx.request
        assert isinstance(request, Request), "the MCP server runs behind the HTTP address"
        try:
            result = await self._own.call(call_of(request), params.name, params.arguments)
        except AgentdError as error:
            return error_result(request, error)
        audited(request, "OK")
        return result


def mcp_door(
    settings: Settings,
    engine: Engine,
    tasks: TaskService,
    agents: Agents,
    registry: ToolRegistry,
) -> McpDoor:
    """The door as the settings say: requestState sealed with AGENTD_KEYS (none: waits are
    told of the inbox), agentd's own tools listed under AGENTD_MCP_TOOLS (their calls
    guarded by the engine's guardrails, as CallTool's are)."""
    return McpDoor(
        engine,
        tasks,
        agents,
        registry,
        settings.key_ring(),
        own_tools=settings.mcp_tools,
        guards=engine.guards,
    )
