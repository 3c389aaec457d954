"""Model output is untrusted input: what any endpoint sends is made safe to store and send.

- Text with lone surrogates (an endpoint may send `"\\ud800"` in its JSON) cannot be
  encoded as UTF-8, so protobuf, Redis and SQL would all refuse it: each one becomes
  U+FFFD.
- Token counts are clamped to `0 ..= MAX_TOKENS`: a negative or absurd count must not
  break a task's record or its budget.
- Tool-call arguments nested deeper than `MAX_ARGUMENT_DEPTH` are refused as a failed
  call (see `ToolCall.arguments`), never a crashed task.
- A reply's text and reasoning are cut at `MAX_REPLY_CHARS`: an endpoint that sends
  megabytes must not make the task's record too large to read back (`GetTask`).
"""

from __future__ import annotations

from dataclasses import replace

from core.text import clean_text
from records.messages import ModelResponse, ToolCall
from records.tasks import TokenUsage

text = clean_text
"""`core.text.clean_text`: lone surrogates become U+FFFD."""

MAX_TOKENS = 10**9
"""More tokens than any one model call can use."""
MAX_REPLY_CHARS = 1_000_000
"""Far more than any model writes in one reply (about 250,000 tokens)."""
CUT_NOTE = f"\n[cut: the model's reply was longer than {MAX_REPLY_CHARS:,} characters]"


def capped(value: str) -> str:
    """`value` cleaned and cut at MAX_REPLY_CHARS (with a note saying so)."""
    cleaned = clean_text(value)
    return cleaned if len(cleaned) <= MAX_REPLY_CHARS else cleaned[:MAX_REPLY_CHARS] + CUT_NOTE


def usage(counts: TokenUsage) -> TokenUsage:
    def clamp(n: int) -> int:
        return min(max(int(n), 0), MAX_TOKENS)

    prompt = clamp(counts.prompt_tokens)
    return TokenUsage(
        prompt,
        clamp(counts.completion_tokens),
        clamp(counts.reasoning_tokens),
        cached_prompt_tokens=min(clamp(counts.cached_prompt_tokens), prompt),
    )


def response(reply: ModelResponse) -> ModelResponse:
    """A reply safe to store, send and count."""
    calls = tuple(
        ToolCall(text(c.id), text(c.name), text(c.arguments_json)) for c in reply.tool_calls
    )
    return replace(
        reply,
        text=capped(reply.text),
        reasoning=capped(reply.reasoning),
        tool_calls=calls,
        finish_reason=text(reply.finish_reason),
        usage=usage(reply.usage),
        model=text(reply.model)[:200],
    )
