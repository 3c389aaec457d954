"""A tracer provider that records nothing yet keeps every span on a trace: what the
OpenTelemetry SDK does with sampling off (`ALWAYS_OFF`), without importing the SDK,
whose import costs a start a good part of its time (docs/deploy.md, "Start-up: what
loads when"). A span continues its parent's trace (the caller's `traceparent`) or
starts a new one with random ids, so events and logs carry trace ids either way."""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, NonRecordingSpan, Span, SpanContext, SpanKind, TraceFlags


def _random_id(size: int) -> int:
    return int.from_bytes(secrets.token_bytes(size), "big") or 1


class UnrecordedTracer(trace.Tracer):
    def start_span(
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: Mapping[str, Any] | None = None,
        links: Sequence[Link] | None = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
    ) -> Span:
        parent = trace.get_current_span(context).get_span_context()
        return NonRecordingSpan(
            SpanContext(
                trace_id=parent.trace_id if parent.is_valid else _random_id(16),
                span_id=_random_id(8),
                is_remote=False,
                trace_flags=TraceFlags(TraceFlags.DEFAULT),
                trace_state=parent.trace_state if parent.is_valid else None,
            )
        )

    @contextmanager
    def start_as_current_span(  # type: ignore[override]  # the API's own context manager type
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind = SpanKind.INTERNAL,
        attributes: Mapping[str, Any] | None = None,
        links: Sequence[Link] | None = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
        end_on_exit: bool = True,
    ) -> Iterator[Span]:
        span = self.start_span(name, context, kind, attributes, links, start_time)
        with trace.use_span(
            span,
            end_on_exit=end_on_exit,
            record_exception=record_exception,
            set_status_on_exception=set_status_on_exception,
        ) as current:
            yield current


class UnrecordedTracerProvider(trace.TracerProvider):
    records_spans = False
    """Read by `core.tracing.spans`."""

    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        return UnrecordedTracer()
