"""Wrapping a method handler in an async context manager: what every interceptor here does.

`around(request, context)` is entered in the call's own task before the
method runs and left after it returned, raised or (for a stream) sent its
last message, so context variables set inside are seen outside, and an
exception raised on entry (an abort) stops the call before it runs. What it
yields, if not None, is the context the method (and the interceptors inside
this one) are given instead of the call's own.

Every handler style passes: a streaming method may be an async generator or a
coroutine that sends with `context.write()` (grpcio's own health servicer's
Watch does); the wrapped stream always sends with `context.write()`, and
closes the method's generator itself, in the call's task. `AroundInterceptor`
builds each method's wrapped handler once and reuses it, so a call costs no
handler construction; what differs between calls (metadata, the principal) is
read from the call's context.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, aclosing
from typing import Any, TypeAlias

import grpc

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
Around: TypeAlias = Callable[[Any, Context], AbstractAsyncContextManager[Any]]


async def send(responses: Any, context: Context) -> None:
    """Send what a streaming method produced: await a method that sends with
    `context.write()` itself; iterate an async generator, write each message, and close
    the generator here, in the call's task, however the stream ends.

    Wrapped streams are coroutines, never async generators: grpc drops a generator left
    at a `yield` when the client goes, to be closed later by the garbage collector in
    another context (its context variables then fail to reset, and whatever it records
    at the end is recorded late or not at all). Here the client's leaving is a
    CancelledError in this very task."""
    if inspect.isawaitable(responses):
        await responses
        return
    async with aclosing(responses):
        async for item in responses:
            await context.write(item)


def rebuild(
    handler: Handler,
    unary: Callable[[Any], Any],
    streaming: Callable[[Any], Any],
) -> Handler:
    """The same handler (its kind and serializers) with its behaviour replaced:
    `unary(behaviour)` for a method that answers once, `streaming(behaviour)` for one
    that streams its answer."""
    options = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(unary(handler.unary_unary), **options)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(streaming(handler.unary_stream), **options)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(unary(handler.stream_unary), **options)
    assert handler.stream_stream is not None
    return grpc.stream_stream_rpc_method_handler(streaming(handler.stream_stream), **options)


def reuse(
    cache: dict[str, tuple[Handler, Handler]],
    method: str,
    handler: Handler,
    build: Callable[[str, Handler], Handler],
) -> Handler:
    """`build(method, handler)`, built on a method's first call and reused while the handler grpc
    finds for it is the same object (it is: grpc finds registered handlers by name)."""
    cached = cache.get(method)
    if cached is not None and cached[0] is handler:
        return cached[1]
    wrapped = build(method, handler)
    cache[method] = (handler, wrapped)
    return wrapped


def wrap(handler: Handler, around: Around) -> Handler:
    """The same handler, run inside `around`."""

    def unary(behaviour: Any) -> Any:
        async def call(request: Any, context: Context) -> Any:
            async with around(request, context) as replaced:
                return await behaviour(request, replaced or context)

        return call

    def streaming(behaviour: Any) -> Any:
        async def call(request: Any, context: Context) -> None:
            async with around(request, context) as replaced:
                await send(behaviour(request, replaced or context), context)

        return call

    return rebuild(handler, unary, streaming)


class AroundInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """An interceptor that runs each method inside `around_for(method)` (None: untouched).

    The wrapped handler of a method is built on its first call and reused while the
    handler inside it is the same object (it is: grpc finds registered handlers by name).
    """

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    def around_for(self, method: str) -> Around | None:
        raise NotImplementedError

    def around_for_handler(self, method: str, handler: Handler) -> Around | None:
        """`around_for(method)`; an interceptor that needs the handler's kind overrides
        this."""
        return self.around_for(method)

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
        around = self.around_for_handler(method, handler)
        return handler if around is None else wrap(handler, around)


def final_code(context: Context, error: BaseException | None) -> str:
    """The name of the status code a call ended with."""
    if error is None:
        code = context.code()
        return code_name(code) if code is not None else "OK"
    if isinstance(error, asyncio.CancelledError | GeneratorExit):
        return "CANCELLED"  # the client left (a stream is closed with GeneratorExit)
    code = context.code()
    return code_name(code) if code is not None else "UNKNOWN"


def code_name(code: Any) -> str:
    """OK, NOT_FOUND, ... for a grpc.StatusCode or its number."""
    if isinstance(code, grpc.StatusCode):
        return code.name
    if isinstance(code, int):
        for member in grpc.StatusCode:
            if member.value[0] == code:
                return member.name
    return str(code)
