"""Tokens of a model call the endpoint did not count.

Some OpenAI-compatible endpoints report no usage (no `usage` object, or zeros).
Token budgets must hold for them too, so such a call is counted by estimate:
about four characters per token, the usual rule for English text with OpenAI's
tokenizers, plus four tokens of framing per message. Estimates err high for code
and low for some other languages; a call counted this way is reported with
`estimated` set on its usage event.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from agent.llm.base import Message, ModelResponse, ToolDefinition
from agent.tasks import TokenUsage

CHARS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4


def _tokens(characters: int) -> int:
    return math.ceil(characters / CHARS_PER_TOKEN)


def estimate(
    messages: Sequence[Message], tools: Sequence[ToolDefinition], response: ModelResponse
) -> TokenUsage:
    """The usage a call of `messages` (offering `tools`) answered by `response` is taken
    to have cost."""
    prompt = 0
    for message in messages:
        calls = sum(len(c.name) + len(c.arguments_json) for c in message.tool_calls)
        prompt += TOKENS_PER_MESSAGE + _tokens(len(message.content) + calls)
    for tool in tools:
        prompt += _tokens(len(tool.name) + len(tool.description) + len(json.dumps(tool.parameters)))
    reply = len(response.text) + sum(
        len(c.name) + len(c.arguments_json) for c in response.tool_calls
    )
    reasoning = _tokens(len(response.reasoning))
    return TokenUsage(prompt, _tokens(reply) + reasoning, reasoning)
