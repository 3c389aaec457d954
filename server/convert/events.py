"""Conversion of task events (`records.events`) to their protobuf form, and stream heartbeats."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from google.protobuf.message import Message

from agentd.v1 import artifacts_pb2, conversations_pb2, events_pb2, tasks_pb2
from records import events as ev
from records.tasks import Task
from server.convert.citations import citations_to_proto
from server.convert.tasks import (
    APPROVAL_DECISIONS,
    dict_to_struct,
    plan_to_proto,
    stop_reason_to_proto,
    task_status_to_proto,
    to_duration,
    to_timestamp,
    to_value,
    tool_error_to_proto,
    usage_to_proto,
)
from server.convert.teams import TEAM_PAYLOADS


def heartbeat(task: Task) -> events_pb2.TaskEvent:
    """A stream's sign of life: sequence 0, never part of the task's log."""
    return events_pb2.TaskEvent(
        task_id=task.task_id,
        sequence=0,
        timestamp=to_timestamp(datetime.now(UTC)),
        trace_id=task.trace_id,
        heartbeat=events_pb2.Heartbeat(
            status=task_status_to_proto(task.status), last_sequence=task.last_sequence
        ),
    )


_DECISIONS = {
    "accept": events_pb2.REFLECTION_DECISION_ACCEPT,
    "revise": events_pb2.REFLECTION_DECISION_REVISE,
    "replan": events_pb2.REFLECTION_DECISION_REPLAN,
}


def _status_changed(p: ev.StatusChanged) -> events_pb2.TaskStatusChanged:
    return events_pb2.TaskStatusChanged(
        previous=task_status_to_proto(p.previous)
        if p.previous
        else tasks_pb2.TASK_STATUS_UNSPECIFIED,
        current=task_status_to_proto(p.current),
        detail=p.detail,
        stop_reason=stop_reason_to_proto(p.stop_reason),
    )


def _plan_created(p: ev.PlanCreated) -> events_pb2.PlanCreated:
    return events_pb2.PlanCreated(plan=plan_to_proto(p.plan))


def _plan_revised(p: ev.PlanRevised) -> events_pb2.PlanRevised:
    return events_pb2.PlanRevised(plan=plan_to_proto(p.plan), reason=p.reason)


def _step_started(p: ev.StepStarted) -> events_pb2.StepStarted:
    return events_pb2.StepStarted(step_id=p.step_id, description=p.description, index=p.index)


def _step_finished(p: ev.StepFinished) -> events_pb2.StepFinished:
    return events_pb2.StepFinished(
        step_id=p.step_id,
        success=p.success,
        output=p.output,
        duration=to_duration(p.duration_seconds),
    )


def _text_delta(p: ev.TextDelta) -> events_pb2.TextDelta:
    return events_pb2.TextDelta(step_id=p.step_id, text=p.text)


def _reasoning_delta(p: ev.ReasoningDelta) -> events_pb2.ReasoningDelta:
    return events_pb2.ReasoningDelta(step_id=p.step_id, text=p.text)


def _tool_call_started(p: ev.ToolCallStarted) -> events_pb2.ToolCallStarted:
    return events_pb2.ToolCallStarted(
        call_id=p.call_id,
        step_id=p.step_id,
        tool_name=p.tool_name,
        arguments=dict_to_struct(p.arguments),
    )


def _tool_call_finished(p: ev.ToolCallFinished) -> events_pb2.ToolCallFinished:
    finished = events_pb2.ToolCallFinished(
        call_id=p.call_id,
        tool_name=p.tool_name,
        duration=to_duration(p.duration_seconds),
        text=p.text,
        cached=p.cached,
    )
    if p.error is not None:
        finished.error.CopyFrom(tool_error_to_proto(p.error))
    else:
        finished.result.CopyFrom(to_value(p.result))
    return finished


def _tool_progress(p: ev.ToolProgress) -> events_pb2.ToolProgress:
    return events_pb2.ToolProgress(
        call_id=p.call_id,
        tool_name=p.tool_name,
        progress=p.progress,
        total=p.total,
        message=p.message,
        reports=p.reports,
    )


def _tool_resumable(p: ev.ToolCallResumable) -> events_pb2.ToolCallResumable:
    return events_pb2.ToolCallResumable(
        call_id=p.call_id,
        tool_name=p.tool_name,
        message=p.message,
        resume_by=to_timestamp(p.resume_by),
    )


def _reflection(p: ev.ReflectionVerdict) -> events_pb2.ReflectionVerdict:
    return events_pb2.ReflectionVerdict(
        step_id=p.step_id,
        accuracy=p.accuracy,
        completeness=p.completeness,
        relevance=p.relevance,
        logic=p.logic,
        confidence=p.confidence,
        passed=p.passed,
        decision=_DECISIONS[p.decision],
        feedback=p.feedback,
    )


def _input_requested(p: ev.InputRequested) -> events_pb2.InputRequested:
    return events_pb2.InputRequested(request_id=p.request_id, question=p.question)


def _input_provided(p: ev.InputProvided) -> events_pb2.InputProvided:
    return events_pb2.InputProvided(request_id=p.request_id, provided_by=p.provided_by, text=p.text)


def _task_steered(p: ev.TaskSteered) -> events_pb2.TaskSteered:
    return events_pb2.TaskSteered(steer_id=p.steer_id, steered_by=p.steered_by, message=p.message)


def _steer_applied(p: ev.SteerApplied) -> events_pb2.SteerApplied:
    return events_pb2.SteerApplied(
        steer_id=p.steer_id, step_id=p.step_id, steer_sequence=p.steer_sequence
    )


def _guardrail_decided(p: ev.GuardrailDecided) -> events_pb2.GuardrailDecided:
    return events_pb2.GuardrailDecided(
        check=p.check,
        rule=p.rule,
        point=p.point,
        action=p.action,
        reason=p.reason,
        tool_name=p.tool_name,
        call_id=p.call_id,
        matches=p.matches,
    )


def _approval_requested(p: ev.ApprovalRequested) -> events_pb2.ApprovalRequested:
    return events_pb2.ApprovalRequested(
        call_id=p.call_id,
        tool_name=p.tool_name,
        arguments=dict_to_struct(p.arguments),
        reason=p.reason,
        approver_roles=list(p.approver_roles),
        deadline=to_timestamp(p.deadline) if p.deadline is not None else None,
    )


def _deadline_passed(p: ev.DeadlinePassed) -> events_pb2.DeadlinePassed:
    return events_pb2.DeadlinePassed(
        request_id=p.request_id,
        kind=p.kind,
        tool_name=p.tool_name,
        outcome=p.outcome,
        approver_roles=list(p.approver_roles),
        deadline=to_timestamp(p.deadline) if p.deadline is not None else None,
    )


def _approval_decided(p: ev.ApprovalDecided) -> events_pb2.ApprovalDecided:
    return events_pb2.ApprovalDecided(
        call_id=p.call_id,
        decision=APPROVAL_DECISIONS[p.decision],
        decided_by=p.decided_by,
        comment=p.comment,
        arguments=dict_to_struct(p.arguments) if p.arguments is not None else None,
    )


def _usage(p: ev.UsageReported) -> events_pb2.UsageReported:
    return events_pb2.UsageReported(
        step_id=p.step_id,
        role=p.role,
        call=usage_to_proto(p.call),
        task_total=usage_to_proto(p.task_total),
        model=p.model,
        estimated=p.estimated,
        provider=p.provider,
    )


def _history_compacted(p: ev.HistoryCompacted) -> conversations_pb2.HistoryCompacted:
    return conversations_pb2.HistoryCompacted(
        messages_summarized=p.messages_summarized,
        summarized_through=p.summarized_through,
        summary_tokens=p.summary_tokens,
        history_tokens=p.history_tokens,
        tokens_saved=max(0, p.tokens_saved),
    )


def _context_fitted(p: ev.ContextFitted) -> events_pb2.ContextFitted:
    return events_pb2.ContextFitted(
        step_id=p.step_id,
        role=p.role,
        model=p.model,
        context_window=max(0, p.context_window),
        prompt_tokens=max(0, p.prompt_tokens),
        max_tokens=max(0, p.max_tokens),
        saved_tokens=max(0, p.saved_tokens),
        clipped_messages=max(0, p.clipped_messages),
        dropped_messages=max(0, p.dropped_messages),
        retry=p.retry,
        dropped_images=max(0, p.dropped_images),
    )


def _stream_discarded(p: ev.StreamDiscarded) -> events_pb2.StreamDiscarded:
    return events_pb2.StreamDiscarded(
        step_id=p.step_id, provider=p.provider, model=p.model, reason=p.reason
    )


def _route_chosen(p: ev.RouteChosen) -> events_pb2.RouteChosen:
    message = events_pb2.RouteChosen(
        decision=p.decision, mode=p.mode, delegate=p.delegate, reason=p.reason, handled=p.handled
    )
    message.duration.FromTimedelta(timedelta(seconds=max(0.0, p.duration_seconds)))
    return message


def _final_answer(p: ev.FinalAnswer) -> events_pb2.FinalAnswer:
    return events_pb2.FinalAnswer(
        text=p.text,
        stop_reason=stop_reason_to_proto(p.stop_reason),
        stop_detail=p.stop_detail,
        partial=p.partial,
        artifacts=[
            artifacts_pb2.ArtifactReference(
                name=a.name, version=a.version, media_type=a.media_type, size_bytes=a.size
            )
            for a in p.artifacts
        ],
        citations=citations_to_proto(p.citations),
    )


def _artifact_updated(p: ev.ArtifactUpdated) -> events_pb2.ArtifactUpdated:
    return events_pb2.ArtifactUpdated(
        name=p.name,
        version=p.version,
        media_type=p.media_type,
        size_bytes=p.size,
        writer_task_id=p.writer_task_id,
    )


def _error(p: ev.ErrorOccurred) -> events_pb2.ErrorOccurred:
    return events_pb2.ErrorOccurred(
        reason=p.reason, message=p.message, fatal=p.fatal, step_id=p.step_id
    )


def _resumed(p: ev.TaskResumed) -> events_pb2.TaskResumed:
    return events_pb2.TaskResumed(
        reason=p.reason, replica=p.replica, completed_steps=p.completed_steps
    )


# Each payload type: the TaskEvent `payload` oneof field it fills, and how to build its message.
_PAYLOADS: dict[type[Any], tuple[str, Callable[[Any], Message]]] = {
    ev.StatusChanged: ("status_changed", _status_changed),
    ev.PlanCreated: ("plan_created", _plan_created),
    ev.PlanRevised: ("plan_revised", _plan_revised),
    ev.StepStarted: ("step_started", _step_started),
    ev.StepFinished: ("step_finished", _step_finished),
    ev.TextDelta: ("text_delta", _text_delta),
    ev.ReasoningDelta: ("reasoning_delta", _reasoning_delta),
    ev.ToolCallStarted: ("tool_call_started", _tool_call_started),
    ev.ToolCallFinished: ("tool_call_finished", _tool_call_finished),
    ev.ToolProgress: ("tool_progress", _tool_progress),
    ev.ToolCallResumable: ("tool_resumable", _tool_resumable),
    ev.ReflectionVerdict: ("reflection", _reflection),
    ev.ApprovalRequested: ("approval_requested", _approval_requested),
    ev.InputRequested: ("input_requested", _input_requested),
    ev.InputProvided: ("input_provided", _input_provided),
    ev.TaskSteered: ("task_steered", _task_steered),
    ev.SteerApplied: ("steer_applied", _steer_applied),
    ev.GuardrailDecided: ("guardrail_decided", _guardrail_decided),
    ev.ApprovalDecided: ("approval_decided", _approval_decided),
    ev.DeadlinePassed: ("deadline_passed", _deadline_passed),
    ev.UsageReported: ("usage", _usage),
    ev.HistoryCompacted: ("history_compacted", _history_compacted),
    ev.ArtifactUpdated: ("artifact_updated", _artifact_updated),
    ev.ContextFitted: ("context_fitted", _context_fitted),
    ev.StreamDiscarded: ("stream_discarded", _stream_discarded),
    ev.RouteChosen: ("route_chosen", _route_chosen),
    ev.FinalAnswer: ("final_answer", _final_answer),
    ev.ErrorOccurred: ("error", _error),
    ev.TaskResumed: ("resumed", _resumed),
    **TEAM_PAYLOADS,
}


def event_to_proto(event: ev.TaskEvent) -> events_pb2.TaskEvent:
    """The one place a domain event becomes its protobuf form."""
    out = events_pb2.TaskEvent(
        task_id=event.task_id,
        sequence=event.sequence,
        timestamp=to_timestamp(event.timestamp),
        trace_id=event.trace_id,
    )
    converter = _PAYLOADS.get(type(event.payload))
    if converter is not None:
        field, build = converter
        getattr(out, field).CopyFrom(build(event.payload))
    return out
