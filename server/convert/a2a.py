"""agentd's tasks and events as A2A's: states one to one, the answer as an artifact, each
streamed update carrying its place in the task's log (`metadata.agentd.sequence`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from a2a.types import a2a_pb2
from google.protobuf import json_format, struct_pb2, timestamp_pb2

from records import events as ev
from records.tasks import Task, TaskStatus

STATES = {
    TaskStatus.PENDING: a2a_pb2.TASK_STATE_SUBMITTED,
    TaskStatus.RUNNING: a2a_pb2.TASK_STATE_WORKING,
    TaskStatus.INPUT_REQUIRED: a2a_pb2.TASK_STATE_INPUT_REQUIRED,
    TaskStatus.COMPLETED: a2a_pb2.TASK_STATE_COMPLETED,
    TaskStatus.FAILED: a2a_pb2.TASK_STATE_FAILED,
    TaskStatus.CANCELLED: a2a_pb2.TASK_STATE_CANCELED,
}
STATUSES = {state: status for status, state in STATES.items()}

ANSWER_ARTIFACT = "answer"


@dataclass(frozen=True, slots=True)
class Pending:
    """What a paused task waits for: an approval of a tool call, or an answer."""

    event: ev.ApprovalRequested | ev.InputRequested


def _timestamp(moment: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def _struct(data: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    json_format.ParseDict(data, struct)
    return struct


def data_part(data: dict[str, Any]) -> a2a_pb2.Part:
    value = struct_pb2.Value()
    json_format.ParseDict(data, value)
    return a2a_pb2.Part(data=value, media_type="application/json")


def agent_message(
    task_id: str, context_id: str, message_id: str, *parts: a2a_pb2.Part
) -> a2a_pb2.Message:
    return a2a_pb2.Message(
        message_id=message_id,
        task_id=task_id,
        context_id=context_id,
        role=a2a_pb2.ROLE_AGENT,
        parts=list(parts),
    )


def pending_message(task: Task, pending: Pending) -> a2a_pb2.Message:
    """The agent's message of an INPUT_REQUIRED status: the question, or the tool call
    to approve (as text and as a data part the caller can act on)."""
    event = pending.event
    if isinstance(event, ev.InputRequested):
        text = event.question
        data: dict[str, Any] = {"kind": "question", "request_id": event.request_id}
        message_id = event.request_id
    else:
        text = (
            f"Approve the call of tool {event.tool_name!r}? ({event.reason}) "
            "Reply 'approve' or 'reject'."
        )
        data = {
            "kind": "approval",
            "call_id": event.call_id,
            "tool_name": event.tool_name,
            "arguments": event.arguments,
            "reason": event.reason,
        }
        message_id = event.call_id
    return agent_message(
        task.task_id,
        task.conversation_id,
        f"{task.task_id}:{message_id}",
        a2a_pb2.Part(text=text),
        data_part(data),
    )


def status_of(task: Task, pending: Pending | None = None) -> a2a_pb2.TaskStatus:
    status = a2a_pb2.TaskStatus(state=STATES[task.status], timestamp=_timestamp(task.updated_at))
    if task.status is TaskStatus.INPUT_REQUIRED and pending is not None:
        status.message.CopyFrom(pending_message(task, pending))
    elif task.status is TaskStatus.FAILED and task.failure is not None:
        status.message.CopyFrom(
            agent_message(
                task.task_id,
                task.conversation_id,
                f"{task.task_id}:failure",
                a2a_pb2.Part(text=task.failure.message),
                data_part({"reason": task.failure.reason}),
            )
        )
    return status


def answer_artifact(text: str, partial: bool) -> a2a_pb2.Artifact:
    return a2a_pb2.Artifact(
        artifact_id=ANSWER_ARTIFACT,
        name=ANSWER_ARTIFACT,
        description="the task's final answer"
        + (" (partial: a limit cut it short)" if partial else ""),
        parts=[a2a_pb2.Part(text=text)],
    )


def task_metadata(task: Task) -> dict[str, Any]:
    return {
        "agentd": {
            "status": task.status.value,
            "stop_reason": task.stop_reason.value if task.stop_reason else "",
            "agent": task.agent.reference if task.agent is not None else "",
            "last_sequence": task.last_sequence,
            "total_tokens": task.usage.total_tokens,
            "prompt_tokens": task.usage.prompt_tokens,
            "completion_tokens": task.usage.completion_tokens,
        }
    }


def task_to_a2a(
    task: Task,
    *,
    pending: Pending | None = None,
    history_length: int | None = None,
    artifacts: bool = True,
) -> a2a_pb2.Task:
    """The A2A view of an agentd task: history is the message that started it."""
    result = a2a_pb2.Task(
        id=task.task_id,
        context_id=task.conversation_id,
        status=status_of(task, pending),
        metadata=_struct(task_metadata(task)),
    )
    if artifacts and task.final_answer:
        result.artifacts.append(answer_artifact(task.final_answer, task.partial))
    if history_length is None or history_length > 0:
        result.history.append(
            a2a_pb2.Message(
                message_id=f"{task.task_id}:goal",
                task_id=task.task_id,
                context_id=task.conversation_id,
                role=a2a_pb2.ROLE_USER,
                parts=[a2a_pb2.Part(text=task.goal)],
            )
        )
    return result


def _position(event: ev.TaskEvent) -> struct_pb2.Struct:
    return _struct({"agentd": {"sequence": event.sequence, "type": event.payload.type}})


Update = a2a_pb2.TaskStatusUpdateEvent | a2a_pb2.TaskArtifactUpdateEvent


def update_of(task: Task, event: ev.TaskEvent) -> Update | None:
    """The A2A update an event of the task's log makes, if any (None: not an A2A update).

    A pause is announced by its request event (it carries the question or the call), so
    the status change to INPUT_REQUIRED itself is not sent twice; the answer is an
    artifact, sent before the terminal status."""
    payload = event.payload
    at = _timestamp(event.timestamp)
    context_id = task.conversation_id
    if isinstance(payload, ev.StatusChanged):
        if payload.current is TaskStatus.INPUT_REQUIRED:
            return None
        status = a2a_pb2.TaskStatus(state=STATES[payload.current], timestamp=at)
        if payload.detail and payload.current.terminal:
            status.message.CopyFrom(
                agent_message(
                    task.task_id,
                    context_id,
                    f"{task.task_id}:{event.sequence}",
                    a2a_pb2.Part(text=payload.detail),
                )
            )
        return a2a_pb2.TaskStatusUpdateEvent(
            task_id=task.task_id, context_id=context_id, status=status, metadata=_position(event)
        )
    if isinstance(payload, ev.ApprovalRequested | ev.InputRequested):
        status = a2a_pb2.TaskStatus(
            state=a2a_pb2.TASK_STATE_INPUT_REQUIRED,
            timestamp=at,
            message=pending_message(task, Pending(payload)),
        )
        return a2a_pb2.TaskStatusUpdateEvent(
            task_id=task.task_id, context_id=context_id, status=status, metadata=_position(event)
        )
    if isinstance(payload, ev.FinalAnswer):
        return a2a_pb2.TaskArtifactUpdateEvent(
            task_id=task.task_id,
            context_id=context_id,
            artifact=answer_artifact(payload.text, payload.partial),
            last_chunk=True,
            metadata=_position(event),
        )
    return None


def stream_response(update: Update) -> a2a_pb2.StreamResponse:
    """An update as the StreamResponse a stream (or a push notification) carries."""
    if isinstance(update, a2a_pb2.TaskStatusUpdateEvent):
        return a2a_pb2.StreamResponse(status_update=update)
    return a2a_pb2.StreamResponse(artifact_update=update)


def ends_stream(event: ev.TaskEvent) -> bool:
    """A stream ends at a terminal status or where the task waits for the caller."""
    return event.terminal or isinstance(event.payload, ev.ApprovalRequested | ev.InputRequested)


def pending_in(events: list[ev.TaskEvent]) -> Pending | None:
    """The request a paused task still waits for: the latest not yet decided or answered."""
    open_requests: dict[str, ev.ApprovalRequested | ev.InputRequested] = {}
    for event in events:
        payload = event.payload
        if isinstance(payload, ev.ApprovalRequested):
            open_requests[payload.call_id] = payload
        elif isinstance(payload, ev.InputRequested):
            open_requests[payload.request_id] = payload
        elif isinstance(payload, ev.ApprovalDecided):
            open_requests.pop(payload.call_id, None)
        elif isinstance(payload, ev.InputProvided) or (
            isinstance(payload, ev.DeadlinePassed) and payload.outcome != "escalated"
        ):
            open_requests.pop(payload.request_id, None)
    if not open_requests:
        return None
    return Pending(next(iter(open_requests.values())))
