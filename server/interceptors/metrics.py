"""Metrics: every RPC counted by method and final status code, and timed."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import grpc

from core.metrics import RPC_LATENCY, RPCS
from server.interceptors.wrapping import Context, Handler, final_code, wrap


class MetricsInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler:
        handler: Handler | None = await continuation(handler_call_details)
        if handler is None:
            return handler  # type: ignore[return-value]  # grpc's stubs omit None
        method = handler_call_details.method

        @asynccontextmanager
        async def measured(request: Any, context: Context) -> AsyncIterator[None]:
            clock = time.perf_counter()
            error: BaseException | None = None
            try:
                yield
            except BaseException as exc:
                error = exc
                raise
            finally:
                RPCS.labels(method, final_code(context, error)).inc()
                RPC_LATENCY.labels(method).observe(time.perf_counter() - clock)

        return wrap(handler, measured)
