"""Progress a running tool reports: how far it is, and a word on what it is doing.

A tool reports through `report` (a built-in, from its own code) or its server does (an
MCP server's progress notifications, a declared HTTP tool's progress lines); whoever
runs the call listens with `listening`. Reports never block and never fail the call:
outside a call, or with no one listening, they go nowhere. What a tool says is untrusted:
numbers are checked, the message cleaned and cut.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from core.text import clean_text

MAX_MESSAGE_CHARS = 500


@dataclass(frozen=True, slots=True)
class Progress:
    """One progress report of a running tool call."""

    progress: float
    """How far the call is (in the tool's own units; grows as it goes)."""
    total: float | None = None
    """What `progress` counts up to, when the tool knows."""
    message: str = ""
    """What the tool is doing, for a person."""


ProgressSink = Callable[[Progress], None]
"""Takes a report; must not block (it is called from the tool's code)."""

_SINK: ContextVar[ProgressSink | None] = ContextVar("agentd_tool_progress", default=None)


def checked(progress: object, total: object = None, message: object = "") -> Progress | None:
    """A report from untrusted numbers and text, or None when they make no sense."""
    if isinstance(progress, bool) or not isinstance(progress, int | float):
        return None
    if not math.isfinite(progress) or progress < 0:
        return None
    whole: float | None = None
    if isinstance(total, int | float) and not isinstance(total, bool):
        whole = float(total) if math.isfinite(total) and total > 0 else None
    text = clean_text(message if isinstance(message, str) else "")[:MAX_MESSAGE_CHARS]
    return Progress(float(progress), whole, text)


def report(progress: float, total: float | None = None, message: str = "") -> None:
    """Report the progress of the call running in this context (a no-op outside one, and
    for numbers that make no sense: `checked`)."""
    sink = _SINK.get()
    found = checked(progress, total, message)
    if sink is not None and found is not None:
        sink(found)


def current() -> ProgressSink | None:
    """Who listens to the progress of the call running in this context (for a tool whose
    reports arrive elsewhere, such as an MCP client's receiving task)."""
    return _SINK.get()


@contextmanager
def listening(sink: ProgressSink) -> Iterator[None]:
    """Send the reports of calls made inside the block to `sink`; a listener outside
    hears them too (after `sink`), so the engine and a tool's timeout both can."""
    outer = _SINK.get()

    def both(found: Progress) -> None:
        sink(found)
        if outer is not None:
            outer(found)

    token = _SINK.set(both)
    try:
        yield
    finally:
        _SINK.reset(token)
