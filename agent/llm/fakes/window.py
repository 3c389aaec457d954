"""The fake model server's own count of a request, and its answer past a declared window.

`agentd fake-llm --context-window N` (or `FakeOpenAIServer(context_window=N)`) makes the
fake server behave like an endpoint serving a model with an N-token window: it counts
each request itself (about four characters per token over every message's text and
tool calls, four tokens of framing per message, and each offered tool's whole JSON)
and answers 400 `context_length_exceeded`, as OpenAI does, when the prompt and the
reply limit asked for (`max_tokens` or `max_completion_tokens`; none asked: nothing)
together exceed N. The count is its own code, not agentd's, so a test that the fake
server never had to refuse a request shows that agentd's fitting holds against an
independent count.
"""

from __future__ import annotations

import json
import math
from typing import Any

from agent.llm.fakes.script import message_text

JSON = dict[str, Any]
FRAMING = 4


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def prompt_tokens(body: JSON) -> int:
    """The request's prompt, counted."""
    total = 0
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        total += FRAMING + _tokens(message_text(message.get("content")))
        for call in message.get("tool_calls") or []:
            function = (call or {}).get("function") or {}
            total += _tokens(str(function.get("name", ""))) + _tokens(
                str(function.get("arguments", ""))
            )
    for tool in body.get("tools") or []:
        total += _tokens(json.dumps(tool))
    return total


def refusal(body: JSON, window: int) -> str | None:
    """OpenAI's message for a request past `window`, or None when it fits."""
    prompt = prompt_tokens(body)
    reply = int(body.get("max_completion_tokens") or body.get("max_tokens") or 0)
    if prompt + reply <= window:
        return None
    return (
        f"This model's maximum context length is {window} tokens. However, you requested "
        f"{prompt + reply} tokens ({prompt} in the messages, {reply} in the completion). "
        "Please reduce the length of the messages or completion."
    )


def cut_at_limit(body: JSON, usage: JSON) -> bool:
    """Whether a reply of `usage`'s completion tokens is longer than the reply limit the
    request asked for; if so `usage` now counts the limit (the reply is cut there)."""
    limit = int(body.get("max_completion_tokens") or body.get("max_tokens") or 0)
    if 0 < limit < int(usage["completion_tokens"]):
        usage["completion_tokens"] = limit
        return True
    return False
