"""How much a trace's entries and messages weigh, as the caps count them: the characters
of their texts, plus a fixed allowance per record and per name. Counted field by field,
never by encoding the record (a run weighs every entry as it queues it, so this is on
the path of every model call). A model call's message ids count a few characters each:
the messages are weighed once each (`message_bytes`), and a store keeps a call's ids as
runs of the task's messages, not each id again (else a task's weight would grow with the
square of its iterations). Structured values (a tool call's arguments and result) are
weighed by their canonical JSON, which their capture makes anyway to cap them."""

from __future__ import annotations

from typing import Any

from records.traces.model import (
    CriticTrace,
    DecisionTrace,
    ModelCallTrace,
    ToolCallTrace,
    TracedMessage,
    TracedToolRequest,
    TraceEntry,
    canonical,
)

RECORD = 64
"""What a record weighs besides its texts (its keys, numbers and punctuation)."""
ID = 4
"""What one message id of a model call weighs."""


def _value(value: Any) -> int:
    if value is None or isinstance(value, bool | int | float):
        return 8
    if isinstance(value, str):
        return len(value) + 2
    return len(canonical(value))


def _requests(calls: tuple[TracedToolRequest, ...]) -> int:
    return sum(len(c.id) + len(c.name) + len(c.arguments_json) + RECORD // 2 for c in calls)


def entry_bytes(entry: TraceEntry) -> int:
    detail = entry.detail
    weight = RECORD + len(entry.step_id)
    if isinstance(detail, ModelCallTrace):
        texts = (detail.role, detail.provider, detail.model, detail.reply_text, detail.error)
        weight += sum(map(len, texts)) + sum(map(len, detail.tools)) + 8 * len(detail.tools)
        weight += ID * len(detail.message_ids) + _requests(detail.reply_tool_calls)
        return weight + 16 * len(detail.parameters) + RECORD
    if isinstance(detail, ToolCallTrace):
        named = (detail.call_id, detail.tool, detail.result_text, detail.error_kind)
        weight += sum(map(len, named)) + len(detail.error) + len(detail.child_task_id)
        return weight + len(detail.arguments_key) + _value(detail.arguments) + _value(detail.result)
    if isinstance(detail, CriticTrace):
        return weight + len(detail.subject) + len(detail.feedback)
    assert isinstance(detail, DecisionTrace)
    said = (detail.kind, detail.call_id, detail.tool, detail.decision, detail.decided_by)
    return weight + sum(map(len, said)) + len(detail.reason)


def message_bytes(message: TracedMessage) -> int:
    texts = (message.message_id, message.role, message.content, message.tool_call_id)
    return RECORD + sum(map(len, texts)) + len(message.name) + _requests(message.tool_calls)
