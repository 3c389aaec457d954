"""Progress from a declared HTTP tool: an API that answers `application/x-ndjson` (or
`application/jsonl`) may send progress lines before its answer.

A line that is a JSON object of `progress` (a number) and optionally `total` and
`message` is a progress report (`tools.progress`), passed on as it arrives and left out of
the answer; every other line is the answer (one JSON line is read as JSON, several as
text). The whole body counts against the size limit, reports included.
"""

from __future__ import annotations

import json
from typing import Any

import httpcore

from records.tools.outcomes import ToolFailed
from tools import progress

STREAMED = ("application/x-ndjson", "application/jsonl")
"""Content types whose lines are read one by one."""
REPORT_KEYS = frozenset({"progress", "total", "message"})


def streamed(response: httpcore.Response) -> bool:
    """Whether the answer comes in lines that may report progress."""
    for name, value in response.headers:
        if name.lower() == b"content-type":
            kind = value.decode("latin-1").split(";", 1)[0].strip().lower()
            return kind in STREAMED
    return False


async def read_lines(response: httpcore.Response, limit: int, oversize: str) -> bytes:
    """The answer's lines without its progress lines (each reported as it arrives); never
    more than `limit` bytes read (ToolFailed naming the `oversize` setting past it)."""
    kept: list[bytes] = []
    pending = bytearray()
    read = 0
    async for chunk in response.aiter_stream():
        read += len(chunk)
        if read > limit:
            raise ToolFailed(
                f"the answer is over {limit:,} bytes ({oversize}); the rest was not read"
            )
        pending.extend(chunk)
        *lines, rest = pending.split(b"\n")
        pending = bytearray(rest)
        kept.extend(bytes(line) for line in lines if not _reported(line))
    if not _reported(bytes(pending)):
        kept.append(bytes(pending))
    return b"\n".join(line for line in kept if line.strip())


def _reported(line: bytes | bytearray) -> bool:
    """Whether `line` is a progress report (and so was reported)."""
    text = line.strip()
    if not text.startswith(b"{"):
        return False
    try:
        value: Any = json.loads(text)
    except (ValueError, RecursionError):
        return False
    if not isinstance(value, dict) or "progress" not in value or not set(value) <= REPORT_KEYS:
        return False
    progress.report(value["progress"], value.get("total"), value.get("message") or "")
    return True
