"""What the CLI prints: a protobuf message as one line of JSON (the proto's field names,
64-bit integers as numbers), an event or a task as a line for people, and an error as one
line that says what to do."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC
from decimal import Decimal
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from agentd.v1 import artifacts_pb2, events_pb2, memory_pb2, tasks_pb2
from agentd_client.errors import AgentdError, UnauthenticatedError
from agentd_client.requests import to_python

TERMINAL = frozenset(
    {tasks_pb2.TASK_STATUS_COMPLETED, tasks_pb2.TASK_STATUS_FAILED, tasks_pb2.TASK_STATUS_CANCELLED}
)


_WIDE = (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64)


def message_dict(message: Message, *, proto_names: bool = True) -> dict[str, Any]:
    """`MessageToDict` with 64-bit integers (token counts, sequence numbers, sizes) as
    numbers: ProtoJSON writes them as strings, and its parsers read numbers as well."""
    data = json_format.MessageToDict(message, preserving_proto_field_name=proto_names)
    _numbers(message, data, proto_names)
    return data


def _numbers(message: Message, data: dict[str, Any], proto_names: bool) -> None:
    """Turn the 64-bit integers MessageToDict wrote of `message` into `data` into ints."""
    for field in message.DESCRIPTOR.fields:
        key = field.name if proto_names else field.json_name
        if key not in data:
            continue
        if field.cpp_type in _WIDE:
            data[key] = [int(v) for v in data[key]] if field.is_repeated else int(data[key])
            continue
        kind = field.message_type
        if kind is None or kind.full_name.startswith("google.protobuf."):
            continue  # a scalar, or a well-known type MessageToDict writes its own way
        value = getattr(message, field.name)
        if kind.GetOptions().map_entry:
            entry = kind.fields_by_name["value"]
            if entry.cpp_type in _WIDE:
                data[key] = {k: int(v) for k, v in data[key].items()}
            elif entry.message_type is not None:
                for k, item in value.items():
                    _numbers(item, data[key][str(k)], proto_names)
        elif field.is_repeated:
            for item, written in zip(value, data[key], strict=True):
                _numbers(item, written, proto_names)
        else:
            _numbers(value, data[key], proto_names)


def as_json(message: Message) -> str:
    return json.dumps(message_dict(message), ensure_ascii=False)


def cut(text: str, width: int) -> str:
    """`text` on one line, cut to at most `width` characters between two words (never
    inside one), with "…" when anything was cut."""
    line = " ".join(text.split())
    if len(line) <= width:
        return line
    head = line[: max(1, width - 1)]
    if line[len(head)] != " " and " " in head:  # a word goes on past the cut: leave it out
        head = head[: head.rindex(" ")]
    return head.rstrip(" ,;:-") + "…"


def table(rows: Sequence[Sequence[str]], width: int) -> list[str]:
    """Rows as aligned columns; the last column is cut to what `width` leaves of it."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    left = sum(widths) + 2 * len(widths)
    room = max(20, width - left)
    return [
        "  ".join(
            [*(c.ljust(w) for c, w in zip(row, widths, strict=False)), cut(row[-1], room)]
        ).rstrip()
        for row in rows
    ]


def columns(rows: Sequence[Sequence[str]], right: Collection[int] = ()) -> list[str]:
    """Rows (a header first, if any) as aligned columns, nothing cut; the columns at the
    indexes in `right` (numbers) aligned to the right."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def money(micros: int, currency: str) -> str:
    """An amount of micro-units as people write it: `0.25 USD` for 250000, `12.00 USD`,
    `0.000001 USD` (2 to 6 decimals, exact)."""
    text = f"{Decimal(micros).scaleb(-6):.6f}"
    whole, fraction = text.split(".")
    return f"{whole}.{fraction.rstrip('0').ljust(2, '0')} {currency}".rstrip()


def nothing(what: str, hint: str = "") -> str:
    """The line a listing prints when it found nothing."""
    return f"no {what}{f' ({hint})' if hint else ''}"


def describe_citations(citations: Iterable[memory_pb2.Citation]) -> list[str]:
    """The knowledge base passages an answer can cite, one line each: `[n] base/document#chunk
    (score) snippet`."""
    return [
        f"[{n}] {c.knowledge_base_id}/{c.document_id}#{c.chunk_index} ({c.score:.2f}) "
        f"{cut(c.snippet, 100)}".rstrip()
        for n, c in enumerate(citations, 1)
    ]


def describe_usage(usage: tasks_pb2.TokenUsage) -> str:
    """`150 tokens (120 prompt, 30 completion)`."""
    reasoning = f", {usage.reasoning_tokens} reasoning" if usage.reasoning_tokens else ""
    return (
        f"{usage.total_tokens} tokens ({usage.prompt_tokens} prompt, "
        f"{usage.completion_tokens} completion{reasoning})"
    )


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
        shown = json.dumps(to_python(payload.arguments), sort_keys=True)
        return f"{head} {payload.tool_name}({shown})"
    if kind == "tool_call_finished":
        outcome = payload.error.message if payload.HasField("error") else payload.text
        return f"{head} {payload.tool_name} -> {outcome[:200]}"
    if kind == "tool_progress":
        whole = f"/{payload.total:g}" if payload.HasField("total") else ""
        return f"{head} {payload.tool_name} {payload.progress:g}{whole} {payload.message}".rstrip()
    if kind == "final_answer":
        written = "".join(f"\n[artifact {a.name} v{a.version}]" for a in payload.artifacts)
        cited = "".join(f"\n{line}" for line in describe_citations(payload.citations))
        return f"{head}\n{payload.text}{written}{cited}"
    if kind == "usage":
        model = " ".join(part for part in (payload.role, payload.model) if part)
        estimated = " estimated" if payload.estimated else ""
        return (
            f"{head} {model}: {describe_usage(payload.call)}{estimated}; task so far "
            f"{payload.task_total.total_tokens} tokens"
        )
    if kind == "artifact_updated":
        return (
            f"{head} {payload.name} v{payload.version} ({payload.media_type}, "
            f"{payload.size_bytes} bytes) by {payload.writer_task_id}"
        )
    if kind == "error":
        return f"{head} {payload.reason}: {payload.message}"
    team = _teamwork(kind, payload)
    if team:
        return f"{head} {team}"
    return f"{head} {json.dumps(message_dict(payload, proto_names=False), ensure_ascii=False)}"


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
    if error.reason == "BUDGET_EXHAUSTED":
        line += _budget_hint(error)
    unsaid = [
        said
        for said in (_one_line(f"{v.field}: {v.description}") for v in error.field_violations)
        if said not in line
    ]
    return f"{line} ({'; '.join(unsaid)})" if unsaid else line


def _budget_hint(error: AgentdError) -> str:
    """What to do about a budget with no room: wait for its next window, or raise it."""
    budget = error.metadata.get("budget_id", "")
    after = error.retry_after_seconds
    wait = f"; it starts afresh in {span(after)}" if after else ""
    change = f"; or raise it: agentd budgets update {budget} --limit AMOUNT" if budget else ""
    return f"{wait}{change}"


def span(seconds: float) -> str:
    """A length of time as people read it: `350 ms`, `2.5 s`, `4 min 10 s`, `2 h 5 min`."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"
