"""Long URLs out of the model's way: short placeholders in, the exact URLs back out.

Tool results are full of long URLs (search results, API links with tracking
parameters) that cost tokens on every later model call. Before the model sees
a tool result, each URL of at least `min_chars` characters is replaced with a
placeholder such as `https://url.invalid/1-3f9a0c2b7e41` (`.invalid` never resolves);
the same URL always gets the same placeholder within a run. Wherever the
model's words leave the engine, placeholders are restored exactly: in the
arguments of the tools it calls, in its streamed text and in the final answer.
The placeholders carry a random token of the run, so a tool result cannot
forge one that restores to a URL it never saw. Events and audit records keep
the original text.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from records.plan import Plan

URL = re.compile(r"https?://[^\s<>\"'`]+")
TRAILING = ".,;:!?)]}"
"""Characters a URL in prose is usually followed by, not made of."""
MAX_URLS = 5_000
"""URLs one run shortens at most; later ones stay as they are."""
MAX_URL_CHARS = 2_048
"""Longer URLs stay as they are: a placeholder never stands for more text than this."""
TOKEN = re.compile(r"[0-9a-f]{12}")
BASE = "https://url.invalid/"


class UrlBook:
    """The placeholders of one run and the URLs they stand for."""

    __slots__ = ("_pattern", "_placeholders", "min_chars", "token", "urls")

    def __init__(
        self, min_chars: int, token: str | None = None, known: Mapping[str, str] | None = None
    ) -> None:
        self.min_chars = min_chars
        self.token = token if token and TOKEN.fullmatch(token) else secrets.token_hex(6)
        self.urls: dict[str, str] = dict(known or {})
        """Placeholder -> URL."""
        self._placeholders = {url: placeholder for placeholder, url in self.urls.items()}
        self._pattern: re.Pattern[str] | None = None
        """Compiled at the first restore that has something to restore (most runs never)."""

    def shorten(self, text: str) -> str:
        """`text` with each long URL replaced by its placeholder."""
        if self.min_chars <= 0 or "://" not in text:
            return text
        return URL.sub(self._replace, text)

    def _replace(self, match: re.Match[str]) -> str:
        found = match.group(0)
        url = found.rstrip(TRAILING)
        if not self.min_chars <= len(url) <= MAX_URL_CHARS:
            return found
        placeholder = self._placeholders.get(url)
        if placeholder is None:
            if len(self.urls) >= MAX_URLS:
                return found
            placeholder = f"{BASE}{len(self.urls) + 1}-{self.token}"
            self.urls[placeholder] = url
            self._placeholders[url] = placeholder
        return placeholder + found[len(url) :]

    def restore(self, text: str) -> str:
        """`text` with every placeholder of this run replaced by its URL."""
        if not self.urls or BASE not in text:
            return text
        if self._pattern is None:
            self._pattern = re.compile(re.escape(BASE) + r"\d+-" + self.token)
        return self._pattern.sub(lambda m: self.urls.get(m.group(0), m.group(0)), text)

    def restore_value(self, value: Any) -> Any:
        """A JSON value with placeholders restored in every string in it."""
        if isinstance(value, str):
            return self.restore(value)
        if isinstance(value, list):
            return [self.restore_value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.restore_value(v) for k, v in value.items()}
        return value

    def restore_plan(self, plan: Plan) -> Plan:
        """A plan the model wrote, with placeholders restored in its steps."""
        if not self.urls:
            return plan
        steps = tuple(
            replace(
                step,
                description=self.restore(step.description),
                expected_output=self.restore(step.expected_output),
                arguments=self.restore_value(dict(step.arguments)),
            )
            for step in plan.steps
        )
        return replace(plan, steps=steps)

    def streamer(self) -> StreamedRestore:
        return StreamedRestore(self)


class StreamedRestore:
    """Restores placeholders in text that arrives in pieces: a piece that ends with what
    may be the start of a placeholder is held back until the next piece (or `flush`)."""

    def __init__(self, book: UrlBook) -> None:
        self._book = book
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        if not self._book.urls:
            self._held = ""
            return text
        cut = _unfinished(text, self._book.token)
        self._held = text[cut:]
        return self._book.restore(text[:cut])

    def flush(self) -> str:
        text, self._held = self._held, ""
        return self._book.restore(text)


def _unfinished(text: str, token: str) -> int:
    """Where what may be an unfinished placeholder at the end of `text` starts (len(text)
    if nothing there could be)."""
    longest = len(BASE) + 8 + 1 + len(token)
    start = text.find("h", max(0, len(text) - longest))
    while start != -1:
        tail = text[start:]
        if BASE.startswith(tail):
            return start
        if tail.startswith(BASE):
            rest = tail[len(BASE) :]
            number, dash, partial = rest.partition("-")
            if number.isdigit() and (not dash or token.startswith(partial)) and len(rest) < 22:
                return start
            if not dash and not number:
                return start
        start = text.find("h", start + 1)
    return len(text)
