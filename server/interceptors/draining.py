"""Refuses new calls with UNAVAILABLE once the server has started to drain.

Health checks still get through, so probes see NOT_SERVING rather than a
refused call while in-flight work finishes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc

from core.errors import ShuttingDownError
from server.status import abort

ALWAYS_SERVED = ("/grpc.health.v1.Health/",)


class DrainingInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    def __init__(self) -> None:
        self.draining = False

        async def refuse(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
            await abort(context, ShuttingDownError())

        self._refusal = grpc.unary_unary_rpc_method_handler(refuse)

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any]]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any]:
        if self.draining and not handler_call_details.method.startswith(ALWAYS_SERVED):
            return self._refusal
        return await continuation(handler_call_details)
