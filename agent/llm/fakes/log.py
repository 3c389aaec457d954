"""The fake model server's request log: one JSON line per request (`agentd fake-llm --log`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, TextIO

from agent.llm.fakes.script import Answer, message_text

JSON = dict[str, Any]


class RequestLog:
    """One JSON line per request on `stream`: when, the role it is for, the last user
    message (clipped), the tools offered, and which entry of the script answered (null:
    none was left, the request got 500) in which round."""

    CLIP = 200

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, body: JSON, role: str | None, answer: Answer | None) -> None:
        messages = body.get("messages", [])
        users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
        text = message_text(users[-1].get("content")) if users else ""
        line = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "role": role,
            "user": text if len(text) <= self.CLIP else text[: self.CLIP - 1] + "…",
            "tools": [str((t.get("function") or {}).get("name")) for t in body.get("tools") or []],
            "entry": answer.entry if answer is not None else None,
            "round": answer.round if answer is not None else None,
        }
        self._stream.write(json.dumps(line, ensure_ascii=False) + "\n")
        self._stream.flush()  # a line each request, for `tail -f`
