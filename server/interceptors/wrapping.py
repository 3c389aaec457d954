"""Wrapping a method handler in an async context manager: what every interceptor here does.

`around(request, context)` is entered in the call's own task before the
method runs and left after it returned, raised or (for a stream) sent its
last message, so context variables set inside are seen outside, and an
exception raised on entry (an abort) stops the call before it runs. What it
yields, if not None, is the context the method (and the interceptors inside
this one) are given instead of the call's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeAlias

import grpc

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"
Around: TypeAlias = Callable[[Any, Context], AbstractAsyncContextManager[Any]]


def wrap(handler: Handler, around: Around) -> Handler:
    """The same handler, run inside `around`."""
    options = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }

    def unary(behaviour: Any) -> Any:
        async def call(request: Any, context: Context) -> Any:
            async with around(request, context) as replaced:
                return await behaviour(request, replaced or context)

        return call

    def streaming(behaviour: Any) -> Any:
        async def call(request: Any, context: Context) -> AsyncIterator[Any]:
            async with around(request, context) as replaced:
                async for item in behaviour(request, replaced or context):
                    yield item

        return call

    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(unary(handler.unary_unary), **options)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(streaming(handler.unary_stream), **options)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(unary(handler.stream_unary), **options)
    assert handler.stream_stream is not None
    return grpc.stream_stream_rpc_method_handler(streaming(handler.stream_stream), **options)


def final_code(context: Context, error: BaseException | None) -> str:
    """The name of the status code a call ended with."""
    if error is None:
        code = context.code()
        return code_name(code) if code is not None else "OK"
    if isinstance(error, asyncio.CancelledError):
        return "CANCELLED"
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
