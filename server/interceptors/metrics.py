"""Metrics: every RPC counted by method and final status code, and timed."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from core.metrics import RPC_LATENCY, RPCS, labelled
from server.interceptors.wrapping import Around, AroundInterceptor, Context, final_code


class MetricsInterceptor(AroundInterceptor):
    def around_for(self, method: str) -> Around:
        calls, latency = RPCS, RPC_LATENCY.labels(method)

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
                labelled(calls, method, final_code(context, error)).inc()
                latency.observe(time.perf_counter() - clock)

        return measured
