"""Trace records as JSON text and back, in one place: what the SQL store keeps in its
`body` columns. Only the trace's own types are rebuilt, field by field (a stored body
cannot make the reader build anything else); a field a newer writer added is ignored,
one an older writer left out takes its default.

A model call's message ids may be kept as runs of the task's messages (`runs`): each
message has a number in its task (the order it was first kept in), and a call that
sent messages 0 to 17 keeps `[[0, 17]]`, not eighteen ids, so a call's record does
not grow with the conversation before it. An id with no number is kept as itself."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from records.tasks import TokenUsage
from records.traces.model import (
    CriticTrace,
    DecisionTrace,
    ModelCallTrace,
    ToolCallTrace,
    ToolSource,
    TraceDetail,
    TracedMessage,
    TracedToolRequest,
    TraceKind,
)


def _dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def detail_json(detail: TraceDetail, numbers: Mapping[str, int] | None = None) -> str:
    """An entry's detail as JSON text (its kind is kept beside it); a model call's
    message ids as runs of their `numbers` in the task, when given."""
    body = asdict(detail)
    if isinstance(detail, ToolCallTrace):
        body["source"] = detail.source.value
    if isinstance(detail, ModelCallTrace) and numbers is not None:
        body["message_ids"] = runs(detail.message_ids, numbers)
    return _dumps(body)


def runs(ids: Sequence[str], numbers: Mapping[str, int]) -> list[Any]:
    """`ids` as runs of consecutive numbers (`[first, last]`), an id without a number
    as itself."""
    kept: list[Any] = []
    for message_id in ids:
        number = numbers.get(message_id)
        if number is None:
            kept.append(message_id)
        elif kept and isinstance(kept[-1], list) and kept[-1][1] + 1 == number:
            kept[-1][1] = number
        else:
            kept.append([number, number])
    return kept


def numbered(body: dict[str, Any]) -> list[tuple[int, int]]:
    """The runs of message numbers a model call's body names."""
    return [
        (int(r[0]), int(r[1]))
        for r in body.get("message_ids") or ()
        if isinstance(r, list) and len(r) == 2
    ]


def detail_of(kind: str, text: str) -> TraceDetail:
    """The detail of an entry of `kind` (`TraceKind` value) from its JSON text."""
    return detail_from(kind, json.loads(text))


def detail_from(
    kind: str, body: dict[str, Any], ids: Mapping[int, str] | None = None
) -> TraceDetail:
    """The detail of an entry of `kind` from its JSON; `ids`: the task's message ids
    by number, for a model call's runs."""
    match TraceKind(kind):
        case TraceKind.MODEL_CALL:
            return _model_call(body, ids or {})
        case TraceKind.TOOL_CALL:
            return ToolCallTrace(
                call_id=str(body.get("call_id", "")),
                tool=str(body.get("tool", "")),
                arguments=dict(body.get("arguments") or {}),
                arguments_key=str(body.get("arguments_key", "")),
                result_text=str(body.get("result_text", "")),
                result=body.get("result"),
                error_kind=str(body.get("error_kind", "")),
                error=str(body.get("error", "")),
                duration_seconds=float(body.get("duration_seconds", 0.0)),
                source=ToolSource(body.get("source", ToolSource.LIVE.value)),
                child_task_id=str(body.get("child_task_id", "")),
            )
        case TraceKind.CRITIC:
            subject, feedback = _text(body, "subject"), _text(body, "feedback")
            return CriticTrace(subject, bool(body.get("accepted")), feedback)
        case TraceKind.DECISION:
            return DecisionTrace(
                kind=_text(body, "kind"),
                call_id=_text(body, "call_id"),
                tool=_text(body, "tool"),
                decision=_text(body, "decision"),
                decided_by=_text(body, "decided_by"),
                reason=_text(body, "reason"),
            )


def _text(body: dict[str, Any], key: str) -> str:
    return str(body.get(key, ""))


def _model_call(body: dict[str, Any], ids: Mapping[int, str]) -> ModelCallTrace:
    usage = body.get("usage") or {}
    named: list[str] = []
    for item in body.get("message_ids") or ():
        if isinstance(item, list):
            named.extend(ids.get(n, "") for n in range(int(item[0]), int(item[1]) + 1))
        else:
            named.append(str(item))
    return ModelCallTrace(
        role=str(body.get("role", "")),
        provider=str(body.get("provider", "")),
        model=str(body.get("model", "")),
        message_ids=tuple(named),
        tools=tuple(str(t) for t in body.get("tools") or ()),
        parameters=dict(body.get("parameters") or {}),
        reply_text=str(body.get("reply_text", "")),
        reply_tool_calls=_requests(body.get("reply_tool_calls")),
        usage=TokenUsage(**{k: int(v) for k, v in usage.items() if k in _USAGE}),
        latency_seconds=float(body.get("latency_seconds", 0.0)),
        error=str(body.get("error", "")),
    )


_USAGE = frozenset(TokenUsage.__dataclass_fields__)


def _requests(value: Any) -> tuple[TracedToolRequest, ...]:
    return tuple(
        TracedToolRequest(
            str(r.get("id", "")), str(r.get("name", "")), str(r.get("arguments_json", ""))
        )
        for r in value or ()
        if isinstance(r, dict)
    )


def message_json(message: TracedMessage) -> str:
    """A message as JSON text (its id is kept beside it)."""
    body = asdict(message)
    del body["message_id"]
    return _dumps(body)


def message_of(message_id: str, text: str) -> TracedMessage:
    body: dict[str, Any] = json.loads(text)
    return TracedMessage(
        message_id=message_id,
        role=str(body.get("role", "")),
        content=str(body.get("content", "")),
        tool_call_id=str(body.get("tool_call_id", "")),
        name=str(body.get("name", "")),
        tool_calls=_requests(body.get("tool_calls")),
        cut=bool(body.get("cut")),
    )
