"""Authentication: every call outside the public methods must carry valid credentials.

The principal found is put in a context variable for the call's handler
(`current_principal`), which `server.calls` turns into the call's
`CallContext`; nothing below the transport reads it. A refused call is
answered UNAUTHENTICATED before its request is even decoded. With auth off
(`AGENTD_AUTH=off`) this interceptor is not installed and every caller is
the anonymous principal of the default tenant.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import Any, TypeAlias

import grpc

from auth.authenticator import Authenticator
from core.errors import UnauthenticatedError
from core.identity import ANONYMOUS, Principal
from server.status import rich_status, trailing_metadata

_PRINCIPAL: ContextVar[Principal] = ContextVar("agentd_principal", default=ANONYMOUS)
PUBLIC_METHODS = ("/grpc.health.v1.Health/", "/grpc.reflection.")

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
Context: TypeAlias = "grpc.aio.ServicerContext[Any, Any]"


def current_principal() -> Principal:
    """The authenticated caller of the call being served (anonymous with auth off)."""
    return _PRINCIPAL.get()


def _after(handler: Handler, prelude: Callable[[Context], Awaitable[None]]) -> Handler:
    """The same handler, running `prelude` in the call's context before its behaviour."""
    options = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }

    def unary(behaviour: Any) -> Any:
        async def call(request: Any, context: Context) -> Any:
            await prelude(context)
            return await behaviour(request, context)

        return call

    def streaming(behaviour: Any) -> Any:
        async def call(request: Any, context: Context) -> AsyncIterator[Any]:
            await prelude(context)
            async for item in behaviour(request, context):
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


class AuthInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    def __init__(
        self, authenticator: Authenticator, public_methods: Sequence[str] = PUBLIC_METHODS
    ) -> None:
        self._authenticator = authenticator
        self._public = tuple(public_methods)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or (self._public and method.startswith(self._public)):
            return handler
        metadata: Any = handler_call_details.invocation_metadata
        try:
            principal = await self._authenticator.authenticate(metadata)
        except UnauthenticatedError as error:
            code, status = rich_status(error)

            async def refuse(context: Context) -> None:
                await context.abort(code, status.message, trailing_metadata(status))

            return _after(handler, refuse)

        async def admit(context: Context) -> None:
            # Awaited in the handler's own task, so the value holds for the whole call.
            _PRINCIPAL.set(principal)

        return _after(handler, admit)
