"""How much a trace's entries and messages weigh (their JSON's length in bytes, as the
caps count them). A model call's message ids count as their number: the messages are
weighed once each (`message_bytes`), and a store keeps a call's ids as runs of the
task's messages, not each id again (else a task's weight would grow with the square of
its iterations)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from records.traces.model import ModelCallTrace, TracedMessage, TraceEntry, canonical


def _weight(value: Any) -> int:
    return len(canonical(value).encode())


def entry_bytes(entry: TraceEntry) -> int:
    body = asdict(entry.detail)
    if isinstance(entry.detail, ModelCallTrace):
        body["message_ids"] = len(entry.detail.message_ids)
    return _weight(body)


def message_bytes(message: TracedMessage) -> int:
    return _weight(asdict(message))
