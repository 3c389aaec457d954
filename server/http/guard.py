"""The guard of the HTTP address: ASGI middleware that keeps, for every request to any
door, the promises `server.http.door` states.

In order: the door is the one whose route matches the path (none: 404, no record); a
public route (`door.public`) is let through as anyone's. Otherwise the caller is
authenticated from the headers (a signed route's, `door.signed`, is not: its caller is
`sender:<route template>@<client address>`, of a tenant of that name, and the door
verifies the signature), the
body read within AGENTD_HTTP_MAX_BODY_BYTES (its content-length first, then each chunk
as it comes: a body over the limit is never read whole), the door names the call, and a
refused caller (401), an oversized body (413) or an empty rate-limit bucket (429) is
answered here: the door is never called, so nothing is stored. A signed call's token is
the door's to take (`door.limited`, put on the request as `door.LIMIT`), once it knows
whose call it is: from the sender's buckets, or from the caller's above for a refusal.
One RPC audit record is written per call, before its answer starts (a stream: when it
starts), with the code and task id the door gave (`door.audited`), else the HTTP
status's code.
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.errors import AgentdError, InternalError, RateLimitedError, RequestTooLargeError
from core.faults import as_store_error
from core.identity import CallContext, Principal
from server.calls import trace_id_from
from server.http.checks import GuardChecks, Started
from server.http.door import CALL, LIMIT, OUTCOME, Door, Limit, is_public, is_signed
from server.http.errors import code_name, error_response
from server.interceptors.auth import PUBLIC, THROTTLED, UNAUTHENTICATED
from server.status import status_code_for

log = structlog.get_logger(__name__)


class _GoneError(Exception):
    """The client went away before its body was read."""


async def _body(scope: Scope, receive: Receive, limit: int) -> tuple[bytes | None, int]:
    """The request's body, or None with the size seen once it is over `limit` (by its
    content-length, or by the chunks read so far)."""
    declared = dict(scope["headers"]).get(b"content-length", b"")
    if declared.isdigit() and int(declared) > limit:
        return None, int(declared)
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _GoneError
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None, size
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), size


def _replaying(body: bytes, receive: Receive) -> Receive:
    """`receive` for the door: the body read already, then what the client sends next (its
    disconnect)."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


class _Call:
    """One guarded call: who made it, what it is named, and its record, written once."""

    def __init__(self, checks: GuardChecks, door: Door, scope: Scope) -> None:
        self.checks = checks
        self.door = door
        self.started = Started.now()
        self.request = Request(scope)
        traceparent = self.request.headers.get("traceparent", "")
        self.trace_id = trace_id_from([("traceparent", traceparent)])
        self.principal: Principal = UNAUTHENTICATED
        self.method = ""
        self.body = b""
        self.recorded = False

    async def record(self, code: str, task_id: str = "") -> None:
        if self.recorded or self.principal is THROTTLED:
            return
        self.recorded = True
        await self.checks.record(
            self.principal,
            f"/{self.door.service}/{self.method or 'unknown'}",
            code,
            started=self.started,
            trace_id=self.trace_id,
            body=self.body,
            task_id=task_id,
        )

    async def refuse(self, error: AgentdError, send: Send) -> None:
        """Answer `error` (the door is not called), recorded first."""
        await self.record(status_code_for(error).name)
        await error_response(error)(self.request.scope, _nothing, send)


async def _nothing() -> Message:
    return {"type": "http.disconnect"}


class Guard:
    """The middleware in front of the doors' routes (`server.http.address` builds it)."""

    def __init__(self, app: ASGIApp, doors: Sequence[Door], checks: GuardChecks) -> None:
        self._app = app
        self._checks = checks
        self._routes = [(route, door) for door in doors for route in door.routes()]

    def _door_of(self, scope: Scope) -> tuple[BaseRoute, Door] | None:
        """The route and door a request is for: a full match, else one whose path matches
        but not its HTTP method (the door's router answers 405)."""
        partial = None
        for route, door in self._routes:
            match, _ = route.matches(scope)
            if match is Match.FULL:
                return route, door
            if match is Match.PARTIAL and partial is None:
                partial = route, door
        return partial

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        found = self._door_of(scope)
        if found is None:
            path = scope.get("path", "")
            answer = {"error": {"code": 404, "status": "NOT_FOUND", "message": f"no {path}"}}
            await JSONResponse(answer, status_code=404)(scope, receive, send)
            return
        route, door = found
        try:
            if is_public(route):
                await self._public(scope, receive, send)
            else:
                call = _Call(self._checks, door, scope)
                await self._guarded(call, receive, send, signed=_sender_of(route, scope))
        except _GoneError:
            return

    async def _public(self, scope: Scope, receive: Receive, send: Send) -> None:
        body, size = await _body(scope, receive, self._checks.max_body_bytes)
        if body is None:
            error = RequestTooLargeError("body", size, self._checks.max_body_bytes)
            await error_response(error)(scope, _nothing, send)
            return
        anyone = PUBLIC if self._checks.authenticator is not None else self._checks.anonymous
        request = Request(scope)
        trace_id = trace_id_from([("traceparent", request.headers.get("traceparent", ""))])
        scope.setdefault("state", {})[CALL] = CallContext(anyone, trace_id)
        await self._app(scope, _replaying(body, receive), send)

    async def _limited(self, call: _Call) -> AgentdError | None:
        """The refusal when the caller's bucket for the call is empty (a call that starts a
        task takes from Execute's), else None: a token taken."""
        bucket = "Execute" if call.door.starts_task(call.method) else call.method
        try:
            return await self._checks.limit(call.principal, bucket)
        except Exception as error:  # noqa: BLE001 - Redis out of reach: UNAVAILABLE
            return _fault(error, call.trace_id)

    def _limit_of(self, call: _Call, state: dict[str, object]) -> Limit:
        """A signed call's `door.Limit`: its token taken from the principal the door names
        (who the call is then), else from the caller's refusals' buckets."""

        async def limit(principal: Principal | None) -> AgentdError | None:
            if principal is not None:
                call.principal = principal
                state[CALL] = CallContext(principal, call.trace_id)
            return await self._limited(call)

        return limit

    async def _guarded(
        self, call: _Call, receive: Receive, send: Send, *, signed: str = ""
    ) -> None:
        scope = call.request.scope
        refusal: AgentdError | None = None
        headers = list(call.request.headers.items())
        peer = (scope.get("client") or ("", 0))[0]
        try:
            if signed:  # its credentials are its signature, which the door verifies
                call.principal = Principal(signed, signed)  # buckets of its own
            else:
                call.principal = await self._checks.caller(headers, peer)
                call.principal = self._checks.acting_for(call.principal, headers)
        except RateLimitedError as error:  # the throttle: not recorded call by call (gRPC's)
            call.principal, refusal = THROTTLED, error
        except AgentdError as error:
            refusal = error
        except Exception as error:  # noqa: BLE001 - a store out of reach, else a bug
            refusal = _fault(error, call.trace_id)
        body, size = await _body(scope, receive, self._checks.max_body_bytes)
        call.body = body or b""
        call.method = call.door.method_of(call.request, call.body)
        if refusal is None and body is None:
            refusal = RequestTooLargeError("body", size, self._checks.max_body_bytes)
        if refusal is None and not signed:
            refusal = await self._limited(call)
        if refusal is not None:
            await call.refuse(refusal, send)
            return
        state = scope.setdefault("state", {})
        state[CALL] = CallContext(call.principal, call.trace_id)
        if signed:
            state[LIMIT] = self._limit_of(call, state)

        async def recording(message: Message) -> None:
            if message["type"] == "http.response.start":
                code, task_id = state.get(OUTCOME) or (code_name(message["status"]), "")
                await call.record(code, task_id)
            await send(message)

        try:
            await self._app(scope, _replaying(call.body, receive), recording)
        except BaseException:
            await call.record("INTERNAL")
            raise


def _sender_of(route: BaseRoute, scope: Scope) -> str:
    """The caller of a signed route, `sender:<route template>@<client address>`, whose
    buckets throttle its refusals; empty for any other route. Keyed on the template
    (`/v1/triggers/{trigger_id}`), not the path, so that one client cannot mint fresh
    rate-limit buckets with made-up ids."""
    if not is_signed(route):
        return ""
    template = str(getattr(route, "path", ""))[:128]
    peer = str((scope.get("client") or ("", 0))[0])[:64]
    return f"sender:{template}@{peer}"


def _fault(error: Exception, trace_id: str) -> AgentdError:
    """A store out of reach as its retryable error, else INTERNAL (logged)."""
    fault = as_store_error(error)
    if fault is not None:
        log.warning("call refused: %s", fault.message, trace_id=trace_id)
        return fault
    log.error("unexpected error checking a call", trace_id=trace_id, exc_info=error)
    return InternalError(trace_id)
