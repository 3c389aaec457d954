"""The A2A HTTP address (AGENTD_A2A_HTTP_ADDRESS): every agent's card at
`/.well-known/agent-card.json` (the default agent) and `/agents/<id>/.well-known/
agent-card.json`, and the JSON-RPC binding at `/` (the SDK's dispatcher over the same
request handler as gRPC). Callers authenticate as on gRPC (`authorization: Bearer`, API
keys or JWTs); a refused call is answered 401. Rate limits and the RPC audit record apply
as on gRPC (`server.services.http_guard`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections.abc import Iterator
from typing import Any

import uvicorn
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes.common import DefaultServerCallContextBuilder
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from auth.authenticator import Authenticator
from core.errors import AgentdError, UnauthenticatedError
from core.identity import ANONYMOUS, CallContext, Principal
from server.a2a.card import RESUME_HEADER
from server.a2a.handler import CALL, RESUME, AgentdRequestHandler
from server.a2a.service import resume_position
from server.calls import trace_id_from
from server.interceptors.auth import UNAUTHENTICATED
from server.listening import StartupError, listening_socket, reason
from server.services.http_guard import HttpGuard, code_of, now
from server.settings import Settings


class _Contexts(DefaultServerCallContextBuilder):
    """The SDK's call context (the headers its version check reads) holding the caller
    `_rpc` authenticated and the resume position."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        context.state[CALL] = request.state.agentd_call
        context.state[RESUME] = resume_position(request.headers.getlist(RESUME_HEADER))
        return context


class _QuietServer(uvicorn.Server):
    """uvicorn without its signal handlers: agentd's own serve() owns SIGTERM/SIGINT."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    def install_signal_handlers(self) -> None:
        return


def _method_of(body: bytes) -> tuple[str, Any]:
    """The JSON-RPC method and id of a request body ("" and None when it has none)."""
    try:
        data = json.loads(body)
    except ValueError:
        return "", None
    if not isinstance(data, dict):
        return "", None
    method = data.get("method")
    return (method if isinstance(method, str) else "")[:64], data.get("id")


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


def _error(
    request_id: Any, code: int, message: str, status: int, headers: dict[str, str]
) -> JSONResponse:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return JSONResponse(body, status_code=status, headers=headers)


class A2AHttp:
    """The HTTP address, started and stopped with the gRPC server."""

    def __init__(
        self,
        settings: Settings,
        handler: AgentdRequestHandler,
        authenticator: Authenticator | None,
        guard: HttpGuard | None = None,
    ) -> None:
        self._guard = guard
        self._settings = settings
        self._handler = handler
        self._authenticator = authenticator
        self._anonymous = Principal(ANONYMOUS.id, ANONYMOUS.tenant, tuple(settings.anonymous_roles))
        self._dispatcher = JsonRpcDispatcher(request_handler=handler, context_builder=_Contexts())
        self._server: _QuietServer | None = None
        self._task: asyncio.Task[None] | None = None

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/.well-known/agent-card.json", self._card, methods=["GET"]),
                Route("/agents/{agent}/.well-known/agent-card.json", self._card, methods=["GET"]),
                Route("/", self._rpc, methods=["POST"]),
            ]
        )

    async def _principal(self, request: Request) -> Principal | None:
        """The caller; None when credentials were sent and refused, or none sent while
        auth is on."""
        if self._authenticator is None:
            return self._anonymous
        metadata = [(k.lower(), v) for k, v in request.headers.items()]
        try:
            return await self._authenticator.authenticate(metadata)
        except UnauthenticatedError:
            return None

    async def _card(self, request: Request) -> Response:
        """The public card: with auth on it lists no skills (the extended card does)."""
        agent = request.path_params.get("agent", "")
        call = None
        if self._authenticator is None:
            call = CallContext(self._anonymous, trace_id_from(()))
        try:
            card = await self._handler.cards.card(call, agent)
        except AgentdError as error:
            return JSONResponse({"error": error.message}, status_code=404)
        return JSONResponse(agent_card_to_dict(card))

    async def _rpc(self, request: Request) -> Response:
        started, clock = now(), time.perf_counter()
        body = await request.body()  # kept by starlette: the dispatcher reads it again
        method, request_id = _method_of(body)
        traceparent: Any = [("traceparent", request.headers.get("traceparent", ""))]
        trace_id = trace_id_from(traceparent)
        principal = await self._principal(request)

        async def audit(code: str, task_id: str = "") -> None:
            if self._guard is not None:
                who = principal if principal is not None else UNAUTHENTICATED
                await self._guard.record(
                    who,
                    method,
                    code,
                    started=started,
                    clock=clock,
                    trace_id=trace_id,
                    body=body,
                    task_id=task_id,
                )

        if principal is None:
            await audit("UNAUTHENTICATED")
            return _error(
                request_id,
                -32600,
                "missing or invalid credentials",
                401,
                {"www-authenticate": "Bearer"},
            )
        if self._guard is not None:
            refused = await self._guard.limit(principal, method)
            if refused is not None:
                await audit("RESOURCE_EXHAUSTED")
                wait = str(max(1, math.ceil(refused.retry_after_seconds or 1)))
                return _error(
                    request_id,
                    -32603,
                    f"RATE_LIMITED: {refused.message}",
                    429,
                    {"retry-after": wait},
                )
        request.state.agentd_call = CallContext(principal, trace_id)
        response = await self._dispatcher.handle_requests(request)
        await audit(*_outcome(response))
        return response

    async def start(self) -> int:
        """Listen; the port bound. StartupError when the address cannot be bound (bound
        here, not by uvicorn, which logs the failure and exits the process)."""
        address = self._settings.a2a_http_address
        try:
            bound = listening_socket(address)
        except (OSError, ValueError) as error:
            raise StartupError(
                f"cannot serve A2A on {address} (AGENTD_A2A_HTTP_ADDRESS): {reason(error)}; "
                "choose another address (port 0: any free port), or empty to serve A2A on "
                "gRPC alone"
            ) from None
        config = uvicorn.Config(self.app(), log_level="warning", lifespan="off", access_log=False)
        self._server = _QuietServer(config)
        self._task = asyncio.create_task(
            self._server.serve(sockets=[bound]), name="agentd-a2a-http"
        )
        for _ in range(500):  # at most 5 s
            if self._server.started or self._task.done():
                break
            await asyncio.sleep(0.01)
        if not self._server.started:
            await self.stop()
            bound.close()
            raise StartupError(f"cannot serve A2A on {address} (AGENTD_A2A_HTTP_ADDRESS)")
        port: int = bound.getsockname()[1]
        return port

    async def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(Exception, SystemExit):
                await self._task
