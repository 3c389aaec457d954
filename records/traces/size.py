"""How much a trace's entries and messages weigh (their JSON's length in bytes, as the
caps count them). A model call's message ids count as their number: the messages are
weighed once each (`message_bytes`), and a store keeps a call's ids as runs of the
task's messages, not each id again (else a task's weight would grow with the square of
its iterations)."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from records.traces.model import ModelCallTrace, TracedMessage, TraceEntry, canonical


def _weight(value: Any) -> int:
    return len(canonical(value).encode())


def entry_bytes(entry: TraceEntry) -> int:
    detail = entry.detail
    if isinstance(detail, ModelCallTrace):  # its fields one by one: no copy of its ids
        body = {f.name: getattr(detail, f.name) for f in fields(detail)}
        body["message_ids"] = len(detail.message_ids)
        body["reply_tool_calls"] = [asdict(c) for c in detail.reply_tool_calls]
        body["usage"] = asdict(detail.usage)
        return _weight(body)
    return _weight(asdict(detail))


def message_bytes(message: TracedMessage) -> int:
    return _weight(asdict(message))
