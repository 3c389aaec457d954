"""How much a trace's entries and messages weigh (their JSON's length in bytes, as the
caps count them)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from records.traces.model import TracedMessage, TraceEntry, canonical


def _weight(value: Any) -> int:
    return len(canonical(value).encode())


def entry_bytes(entry: TraceEntry) -> int:
    return _weight(asdict(entry.detail))


def message_bytes(message: TracedMessage) -> int:
    return _weight(asdict(message))
