"""OpenTelemetry spans for the work agentd does, all on the caller's trace.

The gRPC tracing interceptor opens one span per RPC, continuing the
caller's W3C `traceparent` (or starting a trace). Model and tool calls open
child spans with `span()`; a task resumed by another process has no live
parent, so its spans are attached to the task's stored trace id instead:
every span of a task shares the trace id on its events.

Nothing is exported unless `configure()` finds the standard
OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT or OTEL_TRACES_EXPORTER=otlp; until then spans
are not recorded at all (they still carry the trace ids that events and logs show),
so a process that exports nothing spends no memory or time on them.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import (
    NonRecordingSpan,
    Span,
    SpanContext,
    SpanKind,
    Status,
    StatusCode,
    TraceFlags,
)

TRACER_NAME = "agentd"


_cached: tuple[object, trace.Tracer, str] | None = None

NO_OP, UNRECORDED, RECORDED = "no-op", "unrecorded", "recorded"
"""What the provider makes of a span: the API's no-op (none installed: every span is the
invalid one), one that carries ids but records nothing, or one that records it."""


def tracer() -> trace.Tracer:
    """agentd's tracer from the current provider (looked up once per provider)."""
    return _current()[1]


def spans() -> str:
    """NO_OP, UNRECORDED or RECORDED: what the current provider makes of a span."""
    return _current()[2]


def _current() -> tuple[object, trace.Tracer, str]:
    global _cached
    provider = trace.get_tracer_provider()
    if _cached is None or _cached[0] is not provider:
        if isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
            kind = NO_OP
        else:
            kind = RECORDED if getattr(provider, "records_spans", True) else UNRECORDED
        _cached = (provider, provider.get_tracer(TRACER_NAME), kind)
    return _cached


def configure(service_name: str = "agentd") -> bool:
    """Install the SDK's tracer provider (once per process); OTLP export if the standard
    environment asks for it. Returns whether spans are exported."""
    exporting = (
        bool(
            os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
            or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            or os.environ.get("OTEL_TRACES_EXPORTER", "").lower() == "otlp"
        )
        and os.environ.get("OTEL_SDK_DISABLED", "").lower() != "true"
    )
    trace.set_tracer_provider(provider_for(exporting, service_name))
    return exporting


def provider_for(exporting: bool, service_name: str = "agentd") -> trace.TracerProvider:
    """The SDK's tracer provider: exporting over OTLP, or recording nothing (every span is
    non-recording, on the caller's trace or a new one, as when recorded)."""
    if not exporting:  # the SDK's behaviour with sampling off, without importing it
        from core.unrecorded_traces import UnrecordedTracerProvider

        return UnrecordedTracerProvider()
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    provider = TracerProvider(
        resource=Resource.create(
            {"service.name": os.environ.get("OTEL_SERVICE_NAME", service_name)}
        ),
        sampler=None if exporting else ALWAYS_OFF,
    )
    if exporting:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider


def trace_id_of(span: Span) -> str | None:
    context = span.get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else None


_CALL_TRACE_ID: ContextVar[str | None] = ContextVar("agentd_trace_id", default=None)


def current_trace_id() -> str | None:
    """The trace id of the call being served (None outside an RPC, and in work it did
    not start); set by the server's tracing interceptor."""
    return _CALL_TRACE_ID.get()


def set_call_trace_id(trace_id: str) -> Token[str | None]:
    """Make `trace_id` the current call's (for this task and what it starts); the token
    resets it (`reset_call_trace_id`)."""
    return _CALL_TRACE_ID.set(trace_id)


def reset_call_trace_id(token: Token[str | None]) -> None:
    _CALL_TRACE_ID.reset(token)


@contextmanager
def span(
    name: str,
    trace_id: str,
    attributes: dict[str, Any] | None = None,
    kind: SpanKind = SpanKind.INTERNAL,
) -> Iterator[Span]:
    """A span on trace `trace_id`: a child of the current span when that is on the same
    trace, else attached to the trace directly (a resumed task, a background job).

    When spans are not recorded, a child of the current span would differ from it only
    by an id no one sees (the no-op tracer's child is the current span itself): the
    current span stands for it."""
    current = trace.get_current_span()
    if spans() != RECORDED and trace_id_of(current) == trace_id:
        yield current
        return
    parent = None
    if trace_id_of(current) != trace_id:
        try:
            number = int(trace_id, 16)
        except ValueError:
            number = 0
        if number:
            remote = SpanContext(
                trace_id=number,
                span_id=int.from_bytes(secrets.token_bytes(8), "big") or 1,
                is_remote=True,
                trace_flags=TraceFlags(TraceFlags.SAMPLED),
            )
            parent = trace.set_span_in_context(NonRecordingSpan(remote))
    with start_as_current(name, parent, kind, attributes) as current_span:
        yield current_span


_NO_OP_TRACER = trace.NoOpTracer()


@contextmanager
def start_as_current(
    name: str,
    context: Context | None,
    kind: SpanKind,
    attributes: dict[str, Any] | None,
) -> Iterator[Span]:
    """agentd's tracer's `start_as_current_span` (exceptions not recorded). With no
    provider installed, what the API's proxy tracer would do, without its layers: the
    no-op tracer's span (the parent's own, or a non-recording one on its context) made
    current while the block runs."""
    if spans() == NO_OP:
        started = _NO_OP_TRACER.start_span(name, context, kind, attributes)
        with trace.use_span(started, end_on_exit=True, record_exception=False) as current:
            yield current
        return
    with tracer().start_as_current_span(
        name, context=context, kind=kind, attributes=attributes, record_exception=False
    ) as current:
        yield current


def fail(current: Span, description: str) -> None:
    current.set_status(Status(StatusCode.ERROR, description))
