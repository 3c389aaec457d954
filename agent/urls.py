"""Long URLs out of the model's way: short placeholders in, the exact URLs back out.

Tool results are full of long URLs (search results, API links with tracking
parameters) that cost tokens on every later model call. Before the model sees
a tool result, each URL of at least `min_chars` characters is replaced with a
placeholder such as `https://url.invalid/3f9a/1` (`.invalid` never resolves);
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
from typing import Any

URL = re.compile(r"https?://[^\s<>\"'`]+")
TRAILING = ".,;:!?)]}"
"""Characters a URL in prose is usually followed by, not made of."""
MAX_URLS = 5_000
"""URLs one run shortens at most; later ones stay as they are."""
BASE = "https://url.invalid/"


class UrlBook:
    """The placeholders of one run and the URLs they stand for."""

    def __init__(
        self, min_chars: int, token: str | None = None, known: Mapping[str, str] | None = None
    ) -> None:
        self.min_chars = min_chars
        self.token = token or secrets.token_hex(2)
        self.urls: dict[str, str] = dict(known or {})
        """Placeholder -> URL."""
        self._placeholders = {url: placeholder for placeholder, url in self.urls.items()}
        self._pattern = re.compile(re.escape(f"{BASE}{self.token}/") + r"\d+")

    def shorten(self, text: str) -> str:
        """`text` with each long URL replaced by its placeholder."""
        if self.min_chars <= 0 or "://" not in text:
            return text
        return URL.sub(self._replace, text)

    def _replace(self, match: re.Match[str]) -> str:
        found = match.group(0)
        url = found.rstrip(TRAILING)
        if len(url) < self.min_chars:
            return found
        placeholder = self._placeholders.get(url)
        if placeholder is None:
            if len(self.urls) >= MAX_URLS:
                return found
            placeholder = f"{BASE}{self.token}/{len(self.urls) + 1}"
            self.urls[placeholder] = url
            self._placeholders[url] = placeholder
        return placeholder + found[len(url) :]

    def restore(self, text: str) -> str:
        """`text` with every placeholder of this run replaced by its URL."""
        if not self.urls or BASE not in text:
            return text
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
        cut = _unfinished(text, f"{BASE}{self._book.token}/")
        self._held = text[cut:]
        return self._book.restore(text[:cut])

    def flush(self) -> str:
        text, self._held = self._held, ""
        return self._book.restore(text)


def _unfinished(text: str, prefix: str) -> int:
    """Where a possible placeholder at the end of `text` starts (len(text) if none)."""
    start = text.find(prefix[0], max(0, len(text) - len(prefix) - 12))
    while start != -1:
        tail = text[start:]
        if prefix.startswith(tail) or (tail.startswith(prefix) and tail[len(prefix) :].isdigit()):
            return start
        start = text.find(prefix[0], start + 1)
    return len(text)
