"""Answers undecodable request messages with INVALID_ARGUMENT instead of UNKNOWN.

grpc.aio decodes a request before the servicer runs and reports a decode
failure as UNKNOWN with the Python exception in the message. This
interceptor takes the raw bytes instead, decodes them inside the handler,
and refuses garbage with a rich INVALID_ARGUMENT status. Streaming requests
(reflection) are left alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from core.errors import FieldViolation, InvalidArgumentError
from server.interceptors.wrapping import Handler, send
from server.status import abort

MALFORMED = InvalidArgumentError(
    [FieldViolation("request", "is not a valid protobuf message of the method's request type")]
)


async def _decode(
    deserializer: Callable[[bytes], Any], raw: bytes, context: grpc.aio.ServicerContext[Any, Any]
) -> Any:
    try:
        return deserializer(raw)
    except (DecodeError, ValueError, UnicodeDecodeError):
        await abort(context, MALFORMED)


def _unary_unary(handler: grpc.RpcMethodHandler[Any, Any]) -> grpc.RpcMethodHandler[Any, Any]:
    behaviour: Any = handler.unary_unary
    deserializer = handler.request_deserializer
    assert behaviour is not None
    assert deserializer is not None

    async def decoded(raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        request = await _decode(deserializer, raw, context)
        return await behaviour(request, context)

    return grpc.unary_unary_rpc_method_handler(
        decoded, response_serializer=handler.response_serializer
    )


def _unary_stream(handler: grpc.RpcMethodHandler[Any, Any]) -> grpc.RpcMethodHandler[Any, Any]:
    behaviour: Any = handler.unary_stream
    deserializer = handler.request_deserializer
    assert behaviour is not None
    assert deserializer is not None

    async def decoded(raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        request = await _decode(deserializer, raw, context)
        await send(behaviour(request, context), context)

    return grpc.unary_stream_rpc_method_handler(
        decoded, response_serializer=handler.response_serializer
    )


class DecodingInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Builds each method's decoding handler once (see `wrapping.AroundInterceptor`);
    `composed.ComposedInterceptor` applies `wrap_handler` inside its own layer."""

    def __init__(self) -> None:
        self._wrapped: dict[str, tuple[Handler, Handler]] = {}

    def wrap_handler(self, handler: Handler) -> Handler:
        """`handler`, decoding its request itself (a streamed request is left alone)."""
        if handler.request_deserializer is None:
            return handler
        if handler.unary_unary is not None:
            return _unary_unary(handler)
        if handler.unary_stream is not None:
            return _unary_stream(handler)
        return handler

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler:
        handler = await continuation(handler_call_details)
        if handler is None or handler.request_deserializer is None:
            return handler
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is not None and cached[0] is handler:
            return cached[1]
        wrapped = self.wrap_handler(handler)
        self._wrapped[method] = (handler, wrapped)
        return wrapped
