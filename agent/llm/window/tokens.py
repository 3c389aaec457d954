"""Counting tokens: for the history a task is sent, and for calls the endpoint did not count.

A `TokenCounter` counts the tokens of a text for one model. For OpenAI's models
it is the model's own encoding (tiktoken: o200k_base for the gpt-4o, gpt-4.1,
gpt-5 and o-series names, cl100k_base for gpt-4 and gpt-3.5; `agent.llm.window.encodings`
loads them offline). For every other model it is an estimate: about four
characters per token, the usual rule for English text with OpenAI's tokenizers
(it errs high for code and low for some other languages).

A message costs its text plus four tokens of framing (role and separators), as
OpenAI's chat format does. A model call whose endpoint reports no usage (no
`usage` object, or zeros) is counted the same way, so token budgets hold for such
endpoints too; its usage event is marked `estimated`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Protocol

from records.messages import Message, ModelResponse, ToolDefinition
from records.parts import ImagePart, InlineImage, MessagePart
from records.tasks import TokenUsage

CHARS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4


class TokenCounter(Protocol):
    name: str
    """The encoding ("o200k_base", "cl100k_base") or "estimate"."""

    def count(self, text: str) -> int:
        """Tokens of `text`."""
        ...

    def head(self, text: str, tokens: int) -> str:
        """The longest start of `text` of at most `tokens` tokens."""
        ...


class EstimateCounter:
    """About four characters per token."""

    name = "estimate"

    def count(self, text: str) -> int:
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    def head(self, text: str, tokens: int) -> str:
        return text[: max(0, tokens) * CHARS_PER_TOKEN]


def fit(text: str, tokens: int, counter: TokenCounter) -> str:
    """`text`, or its start and a marker saying how much was cut, in at most about
    `tokens` tokens (the marker's own few tokens included)."""
    size = counter.count(text)
    if size <= tokens:
        return text
    kept = counter.head(text, max(0, tokens - 12))
    return f"{kept}\n[… {size - counter.count(kept)} more tokens cut]"


ESTIMATE = EstimateCounter()


def message_tokens(message: Message, counter: TokenCounter = ESTIMATE) -> int:
    """What `message` costs in a prompt: its text, its tool calls and the framing."""
    tokens = TOKENS_PER_MESSAGE + counter.count(message.content)
    for call in message.tool_calls:
        tokens += counter.count(call.name) + counter.count(call.arguments_json)
    for part in message.parts:
        tokens += part_tokens(part, counter)
    return tokens


def part_tokens(part: MessagePart, counter: TokenCounter = ESTIMATE) -> int:
    """What one message part costs: its text, or an image by OpenAI's tile rule."""
    if isinstance(part, InlineImage):
        part = part.source
    if isinstance(part, ImagePart):
        return image_tokens(part.width, part.height, part.detail)
    return counter.count(part.text)


IMAGE_BASE_TOKENS = 85
IMAGE_TILE_TOKENS = 170


def image_tokens(width: int, height: int, detail: str = "auto") -> int:
    """OpenAI's rule for an image: 85 at detail "low"; otherwise the image scaled to fit
    2048×2048, then its shortest side to 768, and 170 for each 512-pixel tile plus 85."""
    if detail == "low" or width <= 0 or height <= 0:
        return IMAGE_BASE_TOKENS
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        scale = 2048 / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > 768:
        scale = 768 / min(w, h)
        w, h = w * scale, h * scale
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return IMAGE_TILE_TOKENS * tiles + IMAGE_BASE_TOKENS


def estimate(
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    response: ModelResponse,
    counter: TokenCounter = ESTIMATE,
) -> TokenUsage:
    """The usage a call of `messages` (offering `tools`) answered by `response` is taken
    to have cost."""
    prompt = sum(message_tokens(message, counter) for message in messages)
    for tool in tools:
        prompt += counter.count(f"{tool.name} {tool.description} {json.dumps(tool.parameters)}")
    reply = counter.count(response.text) + sum(
        counter.count(c.name) + counter.count(c.arguments_json) for c in response.tool_calls
    )
    reasoning = counter.count(response.reasoning)
    return TokenUsage(prompt, reply + reasoning, reasoning)
