"""The server's per-concern interceptors run as one grpc interceptor: one layer per call.

Each concern keeps its own module and its own `AroundInterceptor` (tracing, metrics,
audit, authentication, rate limits), usable on its own. Installed one after the other,
grpc would await each one's `intercept_service` on every call, and the call would run
one wrapper coroutine per concern, every suspension of the method passing through all
of them. `compose` puts consecutive `AroundInterceptor`s together instead: a
`ComposedInterceptor` asks each for its `around` of a method once (the first call),
and builds one handler that enters them in order, outermost first, and leaves them in
reverse, in one coroutine (`run_inside`). A `HandlerWrapper` right after them (request
decoding) is applied to the handler inside, in the same layer.

What each concern sees is what it saw nested: it is entered in the call's own task,
before the ones after it, with the context the ones before it yielded (audit's, whose
`abort` records first); it is left after them, with the exception they left with (or
none once one suppressed it). An exception raised on entry stops the call there: the
ones already entered are left with it, the others never run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

import grpc

from server.interceptors.wrapping import (
    Around,
    AroundInterceptor,
    Context,
    Handler,
    rebuild,
    reuse,
    send,
)


class HandlerWrapper(Protocol):
    """An interceptor that only transforms a method's handler (request decoding)."""

    def wrap_handler(self, handler: Handler) -> Handler: ...


Body = Callable[[Any, Context], Awaitable[Any]]


async def _leave(
    entered: list[AbstractAsyncContextManager[Any]], error: BaseException | None
) -> bool:
    """Leave `entered`, innermost first, as nested `async with` blocks would, the call
    having raised `error` (or returned: None): each sees the exception the ones inside
    it left with, none once one suppressed it. Raises the exception that comes out;
    True when none was ever raised (the call's result stands)."""
    pending, clean = error, error is None
    while entered:
        manager = entered.pop()
        try:
            if pending is None:
                await manager.__aexit__(None, None, None)
            elif await manager.__aexit__(type(pending), pending, pending.__traceback__):
                pending = None
        except BaseException as raised:  # noqa: BLE001 - the ones outside see it, then raised
            pending, clean = raised, False
    if pending is not None:
        raise pending
    return clean


async def run_inside(arounds: Sequence[Around], request: Any, context: Context, body: Body) -> Any:
    """`body(request, context)` inside `arounds` (outermost first), each given the context
    the ones before it yielded (if any). None when an around suppressed an exception."""
    entered: list[AbstractAsyncContextManager[Any]] = []
    current = context
    try:
        for around in arounds:
            manager = around(request, current)
            replaced = await manager.__aenter__()
            entered.append(manager)
            if replaced is not None:
                current = replaced
        result = await body(request, current)
    except BaseException as error:  # noqa: BLE001 - left with it, then raised (_leave)
        await _leave(entered, error)
        return None
    return result if await _leave(entered, None) else None


def wrap_all(handler: Handler, arounds: Sequence[Around]) -> Handler:
    """The same handler, run inside every one of `arounds` (outermost first)."""
    chain = tuple(arounds)

    def unary(behaviour: Any) -> Any:
        async def call(request: Any, context: Context) -> Any:
            return await run_inside(chain, request, context, behaviour)

        return call

    def streaming(behaviour: Any) -> Any:
        async def body(request: Any, context: Context) -> None:
            await send(behaviour(request, context), context)

        async def call(request: Any, context: Context) -> None:
            await run_inside(chain, request, context, body)

        return call

    return rebuild(handler, unary, streaming)


class ComposedInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """`layers` (outermost first) as one interceptor; `inner`, if given, transforms the
    handler inside them. Each method's handler is built on its first call and reused
    while the handler grpc finds for it is the same object."""

    def __init__(
        self, layers: Sequence[AroundInterceptor], inner: HandlerWrapper | None = None
    ) -> None:
        self.layers = tuple(layers)
        self.inner = inner
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler:
        handler: Handler | None = await continuation(handler_call_details)
        if handler is None:  # an unknown method: grpc answers UNIMPLEMENTED
            return handler  # type: ignore[return-value]  # grpc's stubs omit None
        return reuse(self._wrapped, handler_call_details.method, handler, self._build)

    def _build(self, method: str, handler: Handler) -> Handler:
        inside = handler if self.inner is None else self.inner.wrap_handler(handler)
        arounds = [
            around
            for layer in self.layers
            if (around := layer.around_for_handler(method, inside)) is not None
        ]
        return wrap_all(inside, arounds) if arounds else inside


def compose(
    interceptors: Sequence[grpc.aio.ServerInterceptor],  # type: ignore[type-arg]
) -> list[grpc.aio.ServerInterceptor]:  # type: ignore[type-arg]
    """`interceptors` (outermost first) with each run of consecutive `AroundInterceptor`s
    (and the `HandlerWrapper` right after it, if any) made one `ComposedInterceptor`;
    the others as they are."""
    composed: list[grpc.aio.ServerInterceptor] = []  # type: ignore[type-arg]
    run: list[AroundInterceptor] = []
    for interceptor in interceptors:
        if isinstance(interceptor, AroundInterceptor):
            run.append(interceptor)
            continue
        if run:
            wrapper = interceptor if hasattr(interceptor, "wrap_handler") else None
            composed.append(ComposedInterceptor(run, wrapper))
            run = []
            if wrapper is not None:
                continue
        composed.append(interceptor)
    if run:
        composed.append(ComposedInterceptor(run))
    return composed
