"""Spans when nothing exports them: not recorded, yet on the right trace."""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from core import tracing

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"


def test_a_provider_that_exports_nothing_records_no_span_but_keeps_trace_ids() -> None:
    tracer = tracing.provider_for(exporting=False).get_tracer("test")
    with tracer.start_as_current_span("root") as root:
        assert not root.is_recording()
        assert tracing.trace_id_of(root) is not None
        with tracer.start_as_current_span("child") as child:
            assert tracing.trace_id_of(child) == tracing.trace_id_of(root)
    caller = SpanContext(int(TRACE_ID, 16), 0xB7AD6B7169203331, True, TraceFlags(1))
    parent = trace.set_span_in_context(NonRecordingSpan(caller))
    with tracer.start_as_current_span("rpc", context=parent) as rpc:
        assert not rpc.is_recording()
        assert tracing.trace_id_of(rpc) == TRACE_ID  # the caller's trace, sampled or not
