"""Streamed output under guard: text is released only once it has been checked.

A model's reply arrives in pieces. `GuardedStream` holds it back until `window_chars`
characters have come, checks them as one window with the guard's output checks, and
releases all but the last `tail_chars`, which stay unreleased into the next window, so
that a match straddling two windows (a card number, a deny phrase) is checked whole
before any of it goes out. The next window is checked with the tail of what was already
released before it as context (a `\\b` or a digit before a number reads as it did), but
that context is never released again nor reported again.

BLOCK raises `Blocked`, and nothing of the window that tripped it is released: for any
match no longer than `tail_chars`, not one character of it has gone out before. REDACT
releases the window with its spans replaced; a span never straddles what is released now
and what is held (it is held whole, or, when it began at the window's start, released
whole as its placeholder). RECORD releases the text unchanged. Every verdict that found
something is kept in `verdicts` for the caller's events (a blocking one with no text:
what it blocked goes nowhere, events included; its spans are offsets in its window). A
match longer than `tail_chars` may have its start released before it is seen whole: the
tail is set for the longest thing the checks match.

Checks of Scope.FINAL (model-based ones that run on the final answer only) are not run
on windows: the caller runs them on the whole answer (`Guard.inspect_final`). The engine
puts this right after the `core.secrets.StreamRedactor` of `agent.running.event_writer`,
before the durable log: what it has not released is in no event.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agent.guardrails.base import Blocked
from agent.guardrails.guard import Guard, Judged, verdict
from records.guardrails import Action, Point, Span, Subject, Verdict

DEFAULT_WINDOW_CHARS = 256
DEFAULT_TAIL_CHARS = 128
"""Longer than a card number, an IBAN or an IP address written out, and most e-mail
addresses: matches up to this long are checked whole before any of them is released."""


class GuardedStream:
    """One stream of output (a model's reply) under `guard`: `feed` each piece and send
    on what it returns; `finish` checks and returns the rest."""

    __slots__ = (
        "_blocked",
        "_checks",
        "_context",
        "_pending",
        "guard",
        "subject",
        "tail_chars",
        "verdicts",
        "window_chars",
    )

    def __init__(
        self,
        guard: Guard,
        subject: Subject,
        *,
        window_chars: int = DEFAULT_WINDOW_CHARS,
        tail_chars: int = DEFAULT_TAIL_CHARS,
    ) -> None:
        self.guard, self.subject = guard, subject
        self.window_chars, self.tail_chars = max(1, window_chars), max(0, tail_chars)
        self._checks = guard.checks_at(Point.OUTPUT, final=False)
        self._pending = ""
        self._context = ""
        self._blocked: Verdict | None = None
        self.verdicts: list[Verdict] = []

    async def feed(self, text: str) -> str:
        """The text that may be released now (often none: it is held for its window).
        Blocked when a check blocks (and on every call after)."""
        if self._blocked is not None:
            raise Blocked(self._blocked)
        if not self._checks:
            return text  # nothing looks at the output: nothing to hold back
        self._pending += text
        if len(self._pending) < self.window_chars + self.tail_chars:
            return ""
        return await self._window(last=False)

    async def finish(self) -> str:
        """Check what is held and return it: the end of the stream."""
        if self._blocked is not None:
            raise Blocked(self._blocked)
        if not self._pending:
            return ""
        released = await self._window(last=True)
        self._context = ""
        return released

    async def _window(self, last: bool) -> str:
        window = self._context + self._pending
        base = len(self._context)
        judged = await self.guard.judge(self._checks, window, self.subject)
        blocking = [j for j in judged if j.action is Action.BLOCK]
        if blocking:
            self._blocked = Verdict(Action.BLOCK, tuple(j.finding for j in blocking), "")
            self.verdicts.append(self._blocked)
            raise Blocked(self._blocked)
        cut = (
            len(window) if last else _cut(judged, base, len(window) - self.tail_chars, len(window))
        )
        found = verdict(window[base:cut], _reported(judged, base, cut))
        if found.action is not None:
            self.verdicts.append(found)
        self._context = window[:cut][-self.tail_chars :] if self.tail_chars else ""
        self._pending = window[cut:]
        return found.text


def _cut(judged: Sequence[Judged], base: int, cut: int, end: int) -> int:
    """Where to stop releasing: at most `cut`, never inside a redacted span (one is held
    whole; one that began at the window's start, with nothing before it to release,
    goes out whole), and all of it for a redacting finding without spans."""
    redacting = [j.finding for j in judged if j.action is Action.REDACT]
    if any(not finding.spans for finding in redacting):
        return end
    spans = [s for f in redacting for s in f.spans if s.end > base]
    back = _settle(spans, max(cut, base), forward=False)
    return back if back > base else _settle(spans, max(cut, base), forward=True)


def _settle(spans: Sequence[Span], cut: int, forward: bool) -> int:
    moved = True
    while moved:
        moved = False
        for span in spans:
            if span.start < cut < span.end:
                cut, moved = (span.end if forward else span.start), True
    return cut


def _reported(judged: Sequence[Judged], base: int, cut: int) -> list[Judged]:
    """The findings of the part released now, their spans in its terms: spans before
    `base` were reported with the window that released them, and spans from `cut` on are
    found again with the next window. A finding without spans is of this window."""
    reported = []
    for j in judged:
        if not j.finding.spans:
            reported.append(j)
            continue
        spans = tuple(
            Span(max(s.start, base) - base, min(s.end, cut) - base, s.label)
            for s in j.finding.spans
            if base <= s.start < cut or (j.action is Action.REDACT and s.start < base < s.end)
        )
        if spans:
            reported.append(replace(j, finding=replace(j.finding, spans=spans)))
    return reported
