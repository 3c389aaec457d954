"""What the CLI prints: a protobuf message as one line of JSON (the proto's field names),
an event or a task as a line for people, and an error as one line that says what to do."""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from agentd.v1 import artifacts_pb2, events_pb2, tasks_pb2
from agentd_client.errors import AgentdError, UnauthenticatedError
from agentd_client.requests import to_python

TERMINAL = frozenset(
    {tasks_pb2.TASK_STATUS_COMPLETED, tasks_pb2.TASK_STATUS_FAILED, tasks_pb2.TASK_STATUS_CANCELLED}
)


def as_json(message: Message) -> str:
    data = json_format.MessageToDict(message, preserving_proto_field_name=True)
    return json.dumps(data, ensure_ascii=False)


def status_name(value: int) -> str:
    """`completed` for TASK_STATUS_COMPLETED."""
    return tasks_pb2.TaskStatus.Name(value).removeprefix("TASK_STATUS_").lower()  # type: ignore[arg-type]


def ended(event: events_pb2.TaskEvent) -> int | None:
    """The terminal status an event announces, or None."""
    if event.WhichOneof("payload") == "status_changed":
        current = event.status_changed.current
        return current if current in TERMINAL else None
    return None


def describe_event(event: events_pb2.TaskEvent) -> str:
    """One line for a person reading a task's progress."""
    kind = event.WhichOneof("payload") or "unknown"
    payload: Any = getattr(event, kind, None)
    head = f"#{event.sequence:<4} {kind:<20}"
    if kind == "status_changed":
        return f"{head} {status_name(payload.current)} {payload.detail}".rstrip()
    if kind in ("text_delta", "reasoning_delta"):
        return f"{head} {payload.text!r}"
    if kind == "tool_call_started":
        return f"{head} {payload.tool_name}({json.dumps(to_python(payload.arguments))})"
    if kind == "tool_call_finished":
        outcome = payload.error.message if payload.HasField("error") else payload.text
        return f"{head} {payload.tool_name} -> {outcome[:200]}"
    if kind == "tool_progress":
        whole = f"/{payload.total:g}" if payload.HasField("total") else ""
        return f"{head} {payload.tool_name} {payload.progress:g}{whole} {payload.message}".rstrip()
    if kind == "final_answer":
        written = "".join(f"\n[artifact {a.name} v{a.version}]" for a in payload.artifacts)
        return f"{head}\n{payload.text}{written}"
    if kind == "artifact_updated":
        return (
            f"{head} {payload.name} v{payload.version} ({payload.media_type}, "
            f"{payload.size_bytes} bytes) by {payload.writer_task_id}"
        )
    if kind == "error":
        return f"{head} {payload.reason}: {payload.message}"
    team = _teamwork(kind, payload)
    return f"{head} {team}" if team else f"{head} {json_format.MessageToJson(payload, indent=None)}"


def _teamwork(kind: str, payload: Any) -> str:
    """An event of a child task (a delegation, or a panel member), or a panel's vote."""
    if kind == "subtask_started":
        return f"{payload.child_task_id} {payload.agent}: {_one_line(payload.task)[:160]}"
    if kind == "subtask_finished":
        said = payload.answer or payload.error
        spent = payload.usage.total_tokens
        return (
            f"{payload.child_task_id} {payload.agent} {status_name(payload.status)} "
            f"({spent} tokens): {_one_line(said)[:160]}"
        )
    if kind == "subtask_waiting":
        return (
            f"{payload.child_task_id} waits for {payload.kind} {payload.request_id} "
            f"({payload.detail}); answer on the child's id"
        )
    if kind == "panel_vote":
        vote = payload.answer if payload.ok else f"(failed) {payload.answer}"
        return f"{payload.panel} {payload.agent}: {_one_line(vote)[:160]}"
    if kind == "panel_decided":
        verdict = "reached" if payload.reached else "NOT reached"
        return (
            f"{payload.panel} {verdict} {payload.ratio:.2f} (threshold {payload.threshold:g}): "
            f"{_one_line(payload.answer)[:160]}"
        )
    return ""


def describe_summary(summary: artifacts_pb2.ArtifactSummary) -> str:
    """One line of an artifact: name, latest version, media type, size, who wrote it."""
    return (
        f"{summary.name}  v{summary.version}  {summary.media_type}  "
        f"{summary.size_bytes} bytes  by {summary.writer_task_id}"
    )


def describe_task(task: tasks_pb2.Task) -> str:
    """One line of a task list: id, status, creation time, agent, conversation, task."""
    created = task.create_time.ToDatetime(UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    text = " ".join(task.task.split())
    text = text if len(text) <= 60 else text[:59] + "…"
    return (
        f"{task.task_id}  {status_name(task.status):<14} {created}  "
        f"{task.agent or '-':<16} {task.conversation_id or '-':<29} {text}"
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def error_line(error: AgentdError, address: str, api_key: str | None, timeout: float) -> str:
    """A failed call as one line: the status code (and the reason when it says more), what
    happened, and for the usual mistakes what to do."""
    if isinstance(error, UnauthenticatedError):
        refused = "the API key was refused; " if api_key else ""
        return f"UNAUTHENTICATED: {refused}set AGENTD_API_KEY or pass --api-key"
    if error.code is grpc.StatusCode.UNAVAILABLE and not error.reason:
        return (
            f"UNAVAILABLE: cannot reach agentd at {address} ({_one_line(error.message)}); "
            "is it running? set AGENTD_ADDRESS or pass --address"
        )
    if error.code is grpc.StatusCode.DEADLINE_EXCEEDED and not error.reason:
        return f"DEADLINE_EXCEEDED: no answer within {timeout:g} s; pass a larger --timeout"
    line = _one_line(str(error))
    unsaid = [
        said
        for said in (_one_line(f"{v.field}: {v.description}") for v in error.field_violations)
        if said not in line
    ]
    return f"{line} ({'; '.join(unsaid)})" if unsaid else line
