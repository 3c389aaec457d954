"""Tracing: one server span per RPC on the caller's trace, and the trace id for the call.

The W3C `traceparent` (and `tracestate`) of the request continue the
caller's trace; without one a new trace starts. The call's trace id, which
every event, log line and audit record of the call carries, is the span's
(or, with no tracer provider installed, the `traceparent`'s or a new one).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import structlog
from opentelemetry import propagate
from opentelemetry.trace import SpanKind

from core.identity import new_trace_id
from core.tracing import fail, set_call_trace_id, start_as_current, trace_id_of
from server.interceptors.wrapping import Around, AroundInterceptor, Context, final_code


def _carrier(metadata: Any) -> dict[str, str]:
    return {
        key: value
        for key, value in metadata or ()
        if key in ("traceparent", "tracestate") and isinstance(value, str)
    }


class TracingInterceptor(AroundInterceptor):
    def around_for(self, method: str) -> Around:
        service, _, name = method.lstrip("/").partition("/")
        attributes: dict[str, Any] = {
            "rpc.system": "grpc",
            "rpc.service": service,
            "rpc.method": name,
        }
        name_of_span = method.lstrip("/")

        @asynccontextmanager
        async def traced(request: Any, context: Context) -> AsyncIterator[None]:
            parent = propagate.extract(_carrier(context.invocation_metadata()))
            with start_as_current(name_of_span, parent, SpanKind.SERVER, attributes) as span:
                trace_id = trace_id_of(span) or new_trace_id()
                # Set, never reset: the call's task ends with the call, and a stream may
                # be closed from another context (a reset there would raise).
                set_call_trace_id(trace_id)
                structlog.contextvars.bind_contextvars(trace_id=trace_id)
                error: BaseException | None = None
                try:
                    yield
                except BaseException as exc:
                    error = exc
                    raise
                finally:
                    code = final_code(context, error)
                    span.set_attribute("rpc.grpc.status_code", code)
                    if code not in ("OK", "CANCELLED"):
                        fail(span, code)

        return traced
