"""What a run's trace keeps of a model call, a tool call, a critic's verdict or a decision:
redacted as the audit redacts (`core.secrets.scrub` for text, `redact` for structured
values, `records.tools.invocation.redacted` for arguments) and cut to the record limit
(marked `cut`). Pure functions: the recorder (`agent.recording.recorder`) queues what
they make."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.secrets import redact, scrub, scrub_repeated
from core.text import clean_json, clean_text
from records import events as ev
from records.messages import Message, ModelResponse, ModelSettings, ToolCall
from records.parts import parts_text
from records.tasks import TokenUsage
from records.tools.invocation import Invocation
from records.tools.outcomes import ToolCallResult
from records.traces.model import (
    CriticTrace,
    DecisionTrace,
    ModelCallTrace,
    ToolCallTrace,
    ToolSource,
    TracedMessage,
    TracedToolRequest,
    canonical,
    message_id,
)
from records.traces.model import arguments_key as keyed

CUT_MARK = " …[cut]"


@dataclass(frozen=True, slots=True)
class ModelAnswer:
    """How a model call went: its reply (None when it failed), its time, its error."""

    response: ModelResponse | None
    seconds: float
    error: str = ""


def capped(text: str, limit: int) -> tuple[str, bool]:
    """`text` within `limit` bytes (UTF-8), and whether it was cut (then it ends with
    `CUT_MARK`)."""
    text = clean_text(text)  # a lone surrogate (a model's, a tool's) would fail the store
    if len(text) * 4 <= limit:  # no character is more than four bytes
        return text, False
    raw = text.encode()
    if len(raw) <= limit:
        return text, False
    keep = max(0, limit - len(CUT_MARK.encode()))
    return raw[:keep].decode(errors="ignore") + CUT_MARK, True


def capped_value(value: Any, limit: int) -> tuple[Any, bool]:
    """A JSON value within `limit` bytes: itself, or its canonical JSON cut (a string)."""
    if value is None or isinstance(value, bool | int | float):
        return value, False
    value = clean_json(value)
    text = canonical(value)
    if len(text.encode()) <= limit:
        return value, False
    return capped(text, limit)


def _arguments(arguments_json: str) -> str:
    """A tool request's arguments redacted: by key and by shape when they parse, by
    shape only when not."""
    try:
        value = json.loads(arguments_json or "{}")
        return canonical(redact(value)) if isinstance(value, dict) else scrub(arguments_json)
    except (ValueError, RecursionError):  # not JSON, or nested past what can be walked
        return scrub(arguments_json)


def requests(calls: Sequence[ToolCall], limit: int) -> tuple[tuple[TracedToolRequest, ...], bool]:
    traced: list[TracedToolRequest] = []
    cut = False
    for call in calls:
        arguments, was = capped(_arguments(call.arguments_json), limit)
        cut = cut or was
        traced.append(TracedToolRequest(call.id, call.name, arguments))
    return tuple(traced), cut


def message(sent: Message, limit: int) -> TracedMessage:
    """A message as a trace keeps it: redacted, cut, named by its content address. Its
    parts follow its text: text parts as they are, images by their artifacts' names
    (never their bytes)."""
    text = f"{sent.content}\n{parts_text(sent.parts)}" if sent.parts else sent.content
    content, cut = capped(scrub_repeated(text), limit)
    calls, cut_calls = requests(sent.tool_calls, limit)
    asked = "".join(
        f"{len(c.id)}:{c.id}{len(c.name)}:{c.name}{len(c.arguments_json)}:{c.arguments_json}"
        for c in calls
    )
    named = message_id(sent.role, content, sent.tool_call_id, sent.name, asked)
    return TracedMessage(
        named, sent.role, content, sent.tool_call_id, sent.name, calls, cut or cut_calls
    )


def parameters(settings: ModelSettings | None) -> dict[str, Any]:
    """The settings a call was sent with, those that were set."""
    if settings is None:
        return {}
    found: dict[str, Any] = {"tool_choice": settings.tool_choice}
    if settings.temperature is not None:
        found["temperature"] = settings.temperature
    if settings.max_tokens is not None:
        found["max_tokens"] = settings.max_tokens
    if settings.stop:
        found["stop"] = list(settings.stop)
    if settings.json_schema is not None:
        found["json_schema"] = {"name": settings.schema_name, "schema": dict(settings.json_schema)}
    return found


def tool_call(
    invocation: Invocation,
    result: ToolCallResult,
    key: bytes,
    limit: int,
    source: ToolSource = ToolSource.LIVE,
    child_task_id: str = "",
) -> tuple[ToolCallTrace, bool]:
    """A finished tool call as its trace keeps it (arguments redacted, their keyed hash
    taken before), and whether something was cut."""
    arguments, cut_arguments = capped_value(dict(invocation.redacted), limit)
    text, cut_text = capped(scrub(result.text), limit)
    data, cut_data = capped_value(redact(result.data), limit)
    error = result.error
    traced = ToolCallTrace(
        call_id=invocation.call_id,
        tool=invocation.name,
        arguments=arguments if isinstance(arguments, dict) else {"cut": arguments},
        arguments_key=keyed(key, invocation.name, invocation.arguments),
        result_text=text,
        result=data,
        error_kind=error.kind.value if error is not None else "",
        error=scrub(error.message) if error is not None else "",
        duration_seconds=result.duration_seconds,
        source=source,
        child_task_id=child_task_id or _child(result.data),
    )
    return traced, cut_arguments or cut_text or cut_data


def _child(data: Any) -> str:
    """The child task a delegation's or a panel member's result names, if it does."""
    if isinstance(data, Mapping):
        found = data.get("task_id") or data.get("child_task_id")
        return found if isinstance(found, str) else ""
    return ""


def of_event(payload: ev.EventPayload) -> CriticTrace | DecisionTrace | None:
    """The trace record of an event that is a verdict or a decision (None for others);
    the payload is as the task's log has it (redacted)."""
    match payload:
        case ev.ReflectionVerdict():
            return CriticTrace(payload.step_id or "answer", payload.passed, payload.feedback)
        case ev.GuardrailDecided():
            why = f"{payload.check}/{payload.rule} at {payload.point}: {payload.reason}"
            return DecisionTrace(
                "guardrail", payload.call_id, payload.tool_name, payload.action, "guardrail", why
            )
        case ev.ApprovalDecided():
            return DecisionTrace(
                "approval",
                payload.call_id,
                "",
                payload.decision,
                payload.decided_by,
                payload.comment,
            )
        case ev.DeadlinePassed():
            why = f"no answer to the {payload.kind} before its deadline"
            return DecisionTrace(
                "deadline", payload.request_id, payload.tool_name, payload.outcome, "", why
            )
        case _:
            return None


def model_call(
    role: str,
    model: str,
    ids: Sequence[str],
    tools: Sequence[str],
    settings: ModelSettings | None,
    answered: ModelAnswer,
    limit: int,
) -> tuple[ModelCallTrace, bool]:
    """A model call as its trace keeps it (its messages named by id), and whether
    something of its reply was cut."""
    response = answered.response
    calls: tuple[TracedToolRequest, ...] = ()
    if response is None:
        usage, text, cut_text, cut_calls, provider = TokenUsage(), "", False, False, ""
    else:
        usage, provider = response.usage, response.provider
        text, cut_text = capped(scrub(response.text), limit)
        calls, cut_calls = requests(response.tool_calls, limit)
        model = response.model or model
    traced = ModelCallTrace(
        role=role,
        provider=provider,
        model=model,
        message_ids=tuple(ids),
        tools=tuple(tools),
        parameters=parameters(settings),
        reply_text=text,
        reply_tool_calls=calls,
        usage=usage,
        latency_seconds=answered.seconds,
        error=capped(scrub(answered.error), limit)[0],
    )
    return traced, cut_text or cut_calls
