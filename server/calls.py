"""Error handling for RPC methods, written once: one wrapper for unary calls, one for streams.

Each wrapper builds the `CallContext` from the gRPC context, runs the method,
and turns an `AgentdError` into a rich status (`server.status`). Any other
exception is logged with its trace id and reported as INTERNAL without
internals. Cancellation is never swallowed.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NoReturn, TypeVar

import grpc
import structlog

from core.errors import AgentdError, InternalError, ResourceExhaustedError
from core.faults import as_store_error
from core.identity import CallContext, new_trace_id
from core.tracing import current_trace_id
from server.interceptors.auth import current_principal
from server.request_text import refuse_nul
from server.status import abort

log = structlog.get_logger(__name__)

Req = TypeVar("Req")
Resp = TypeVar("Resp")
S = TypeVar("S")

TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")


def trace_id_from(metadata: Any) -> str:
    """The trace id of a valid W3C `traceparent` header, else a new one."""
    for key, value in metadata or ():
        if key == "traceparent" and isinstance(value, str):
            match = TRACEPARENT.match(value.strip().lower())
            if match and match.group(1) != "0" * 32:
                return match.group(1)
    return new_trace_id()


def call_context(context: grpc.aio.ServicerContext[Any, Any]) -> CallContext:
    remaining = context.time_remaining()
    return CallContext(
        principal=current_principal(),
        trace_id=current_trace_id() or trace_id_from(context.invocation_metadata()),
        deadline_seconds=remaining,
    )


async def _fail(
    context: grpc.aio.ServicerContext[Any, Any], call: CallContext, method: str, exc: Exception
) -> NoReturn:
    if isinstance(exc, AgentdError):
        # A full server refuses many calls under a burst: each is counted and audited,
        # so its log line is for debugging only.
        level = logging.DEBUG if isinstance(exc, ResourceExhaustedError) else logging.INFO
        log.log(level, "call failed", method=method, reason=exc.reason, trace_id=call.trace_id)
        await abort(context, exc)
    fault = as_store_error(exc)
    if fault is not None:  # Redis or the database out of reach: retryable, not a bug
        log.warning("call failed: %s", fault.message, method=method, trace_id=call.trace_id)
        await abort(context, fault)
    log.error("unexpected error", method=method, trace_id=call.trace_id, exc_info=exc)
    await abort(context, InternalError(call.trace_id))


def unary(
    method: Callable[[S, Req, CallContext], Awaitable[Resp]],
) -> Callable[[S, Req, grpc.aio.ServicerContext[Any, Any]], Awaitable[Resp]]:
    @functools.wraps(method)
    async def handler(self: S, request: Req, context: grpc.aio.ServicerContext[Any, Any]) -> Resp:
        call = call_context(context)
        try:
            refuse_nul(request)
            return await method(self, request, call)
        except Exception as exc:  # noqa: BLE001 - mapped to a status right here
            await _fail(context, call, method.__name__, exc)

    return handler


def stream(
    method: Callable[[S, Req, CallContext], AsyncIterator[Resp]],
) -> Callable[[S, Req, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[Resp]]:
    @functools.wraps(method)
    async def handler(
        self: S, request: Req, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Resp]:
        call = call_context(context)
        try:
            refuse_nul(request)
            items = method(self, request, call)
            try:
                async for item in items:
                    yield item
            finally:  # closed here, in the call's task, if the stream ends early
                close = getattr(items, "aclose", None)
                if close is not None:
                    await close()
        except Exception as exc:  # noqa: BLE001 - mapped to a status right here
            await _fail(context, call, method.__name__, exc)

    return handler
