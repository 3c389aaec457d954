"""A task's durable trace (`records.traces`) as GetTaskTraceResponse, and its page
tokens: a token is the entry id a page ended on (`pages.KeyCursor`)."""

from __future__ import annotations

from agentd.v1 import traces_pb2
from records.paging import KeyCursor
from records.traces.model import (
    CriticTrace,
    DecisionTrace,
    ModelCallTrace,
    ToolCallTrace,
    ToolSource,
    TracedMessage,
    TracedToolRequest,
    TraceEntry,
    TraceHead,
    TracePage,
)
from server.convert import pages
from server.convert.tasks import to_timestamp, usage_to_proto
from server.convert.values import dict_to_struct, to_value

MAX_PAGE = 500
DEFAULT_PAGE = 100

_SOURCES = {
    ToolSource.LIVE: traces_pb2.TRACE_TOOL_SOURCE_LIVE,
    ToolSource.RECORDED: traces_pb2.TRACE_TOOL_SOURCE_RECORDED,
    ToolSource.NOT_RUN: traces_pb2.TRACE_TOOL_SOURCE_NOT_RUN,
}


def after(page_token: str) -> str:
    """The entry id a page token says to read on after ("" for the first page);
    INVALID_ARGUMENT for a token this server did not issue."""
    cursor = pages.key_cursor(page_token)
    return cursor.item_id if cursor is not None else ""


def trace_to_proto(
    task_id: str, head: TraceHead, page: TracePage, children: tuple[str, ...]
) -> traces_pb2.GetTaskTraceResponse:
    owner = head.owner
    next_token = pages.token(KeyCursor(0, page.next_after)) if page.next_after else ""
    return traces_pb2.GetTaskTraceResponse(
        task_id=task_id,
        entries=[_entry(e) for e in page.entries],
        messages=[_message(m) for m in page.messages],
        next_page_token=next_token,
        child_task_ids=list(children),
        cut=head.cut,
        agent=owner.agent,
        task=owner.task,
    )


def _request(request: TracedToolRequest) -> traces_pb2.TraceToolRequest:
    return traces_pb2.TraceToolRequest(
        id=request.id, name=request.name, arguments_json=request.arguments_json
    )


def _message(message: TracedMessage) -> traces_pb2.TraceMessage:
    return traces_pb2.TraceMessage(
        message_id=message.message_id,
        role=message.role,
        content=message.content,
        tool_call_id=message.tool_call_id,
        name=message.name,
        tool_calls=[_request(c) for c in message.tool_calls],
        cut=message.cut,
    )


def _entry(entry: TraceEntry) -> traces_pb2.TraceEntry:
    made = traces_pb2.TraceEntry(
        entry_id=entry.entry_id, step_id=entry.step_id, time=to_timestamp(entry.time), cut=entry.cut
    )
    detail = entry.detail
    match detail:
        case ModelCallTrace():
            made.kind = traces_pb2.TRACE_KIND_MODEL_CALL
            made.model_call.CopyFrom(_model_call(detail))
        case ToolCallTrace():
            made.kind = traces_pb2.TRACE_KIND_TOOL_CALL
            made.tool_call.CopyFrom(_tool_call(detail))
        case CriticTrace():
            made.kind = traces_pb2.TRACE_KIND_CRITIC_VERDICT
            made.critic.CopyFrom(
                traces_pb2.CriticTrace(
                    subject=detail.subject, accepted=detail.accepted, feedback=detail.feedback
                )
            )
        case DecisionTrace():
            made.kind = traces_pb2.TRACE_KIND_DECISION
            made.decision.CopyFrom(
                traces_pb2.DecisionTrace(
                    kind=detail.kind,
                    call_id=detail.call_id,
                    tool=detail.tool,
                    decision=detail.decision,
                    decided_by=detail.decided_by,
                    reason=detail.reason,
                )
            )
    return made


def _model_call(call: ModelCallTrace) -> traces_pb2.ModelCallTrace:
    return traces_pb2.ModelCallTrace(
        role=call.role,
        provider=call.provider,
        model=call.model,
        message_ids=list(call.message_ids),
        tools=list(call.tools),
        parameters=dict_to_struct(call.parameters),
        reply_text=call.reply_text,
        reply_tool_calls=[_request(c) for c in call.reply_tool_calls],
        usage=usage_to_proto(call.usage),
        latency_seconds=call.latency_seconds,
        error=call.error,
    )


def _tool_call(call: ToolCallTrace) -> traces_pb2.ToolCallTrace:
    made = traces_pb2.ToolCallTrace(
        call_id=call.call_id,
        tool=call.tool,
        arguments=dict_to_struct(call.arguments),
        result_text=call.result_text,
        error_kind=call.error_kind,
        error=call.error,
        duration_seconds=call.duration_seconds,
        source=_SOURCES[call.source],
        child_task_id=call.child_task_id,
    )
    if call.result is not None:
        made.result.CopyFrom(to_value(call.result))
    return made
