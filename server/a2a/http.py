"""A2A's door on the HTTP address (`server.http`, switched on by `a2a` in
AGENTD_HTTP_DOORS): every agent's card at `/.well-known/agent-card.json` (the default
agent) and `/agents/<id>/.well-known/agent-card.json`, public, and the JSON-RPC binding
at `/` (the SDK's dispatcher over the same request handler as gRPC). The address's guard
authenticates, limits and audits each JSON-RPC call under its JSON-RPC method (a
SendMessage or SendStreamingMessage takes from Execute's rate, as on gRPC); the door
names the call and says the code its answer carries."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Sequence

from a2a.server.context import ServerCallContext
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes.common import DefaultServerCallContextBuilder
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from core.errors import AgentdError
from server.a2a.card import RESUME_HEADER
from server.a2a.handler import CALL, RESUME, AgentdRequestHandler
from server.a2a.service import SERVICE_NAME, resume_position
from server.http.door import audited, call_of, jsonrpc_method, public

SERVICE = SERVICE_NAME
STARTS_TASKS = frozenset({"SendMessage", "SendStreamingMessage"})
JSONRPC_CODES = {
    -32001: "NOT_FOUND",
    -32002: "FAILED_PRECONDITION",
    -32003: "FAILED_PRECONDITION",
    -32004: "FAILED_PRECONDITION",
    -32005: "INVALID_ARGUMENT",
    -32600: "INVALID_ARGUMENT",
    -32601: "UNIMPLEMENTED",
    -32602: "INVALID_ARGUMENT",
    -32700: "INVALID_ARGUMENT",
}
"""A2A's JSON-RPC error codes as the gRPC code names audit records use (others INTERNAL)."""


def code_of(error_code: object) -> str:
    if error_code is None:
        return "OK"
    return JSONRPC_CODES.get(error_code, "INTERNAL") if isinstance(error_code, int) else "INTERNAL"


class _Contexts(DefaultServerCallContextBuilder):
    """The SDK's call context (the headers its version check reads) holding the caller the
    guard authenticated and the resume position."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        context.state[CALL] = call_of(request)
        context.state[RESUME] = resume_position(request.headers.getlist(RESUME_HEADER))
        return context


def _outcome(response: Response) -> tuple[str, str]:
    """The audit code and task id of an answer (a stream: OK when it starts)."""
    if not isinstance(response, JSONResponse):
        return "OK", ""
    try:
        data = json.loads(bytes(response.body))
    except ValueError:
        return "INTERNAL", ""
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return code_of(error.get("code")), ""
    result = data.get("result") if isinstance(data, dict) else None
    task = result.get("task", result) if isinstance(result, dict) else None
    task_id = task.get("id") if isinstance(task, dict) else None
    return "OK", task_id if isinstance(task_id, str) else ""


class A2ADoor:
    """A2A's cards and JSON-RPC binding, a door of the HTTP address."""

    name = "a2a"
    service = SERVICE

    def __init__(self, handler: AgentdRequestHandler, *, auth: bool) -> None:
        self._handler = handler
        self._auth = auth
        self._dispatcher = JsonRpcDispatcher(request_handler=handler, context_builder=_Contexts())

    def routes(self) -> Sequence[BaseRoute]:
        return [
            public(Route("/.well-known/agent-card.json", self._card, methods=["GET"])),
            public(
                Route("/agents/{agent}/.well-known/agent-card.json", self._card, methods=["GET"])
            ),
            Route("/", self._rpc, methods=["POST"]),
        ]

    def method_of(self, request: Request, body: bytes) -> str:
        """The JSON-RPC method of the body ("unknown" when it names none, or is not JSON
        that can be parsed)."""
        return jsonrpc_method(body) or "unknown"

    def starts_task(self, method: str) -> bool:
        return method in STARTS_TASKS

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        yield  # the push notifications' deliverer runs with A2A itself (a2a_serving)

    async def _card(self, request: Request) -> Response:
        """The public card: with auth on it lists no skills (the extended card does)."""
        agent = request.path_params.get("agent", "")
        call = None if self._auth else call_of(request)
        try:
            card = await self._handler.cards.card(call, agent)
        except AgentdError as error:
            return JSONResponse({"error": error.message}, status_code=404)
        return JSONResponse(agent_card_to_dict(card))

    async def _rpc(self, request: Request) -> Response:
        response = await self._dispatcher.handle_requests(request)
        audited(request, *_outcome(response))
        return response
