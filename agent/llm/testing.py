"""Deterministic models for tests (and for trying agentd without an endpoint).

`FunctionModel(fn)` calls `fn(messages, tools, settings)` for every reply;
`ScriptedModel(replies)` returns its replies in order and, with
`assert_complete()`, checks that every one was used. Both stream a reply's
text in a few chunks so the streaming path is exercised too.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent.llm.base import Model, ModelError
from agent.llm.fakes.received import ReceivedImage, images_in, text_in
from records.messages import (
    Done,
    Message,
    ModelResponse,
    ModelSettings,
    ReasoningChunk,
    StreamItem,
    TextChunk,
    ToolCall,
    ToolDefinition,
)
from records.tasks import TokenUsage

Reply = ModelResponse | Exception
ReplyFunction = Callable[
    [Sequence[Message], Sequence[ToolDefinition], ModelSettings], Reply | Awaitable[Reply]
]


def text(
    content: str, *, reasoning: str = "", prompt_tokens: int = 10, completion_tokens: int = 5
) -> ModelResponse:
    """A plain text reply."""
    return ModelResponse(
        text=content,
        reasoning=reasoning,
        usage=TokenUsage(prompt_tokens, completion_tokens),
    )


def tool_calls(
    *calls: tuple[str, dict[str, Any] | str], prompt_tokens: int = 10, completion_tokens: int = 5
) -> ModelResponse:
    """A reply that calls tools; arguments given as a dict or raw (possibly broken) JSON."""
    return ModelResponse(
        tool_calls=tuple(
            ToolCall(f"call_{i}", name, args if isinstance(args, str) else json.dumps(args))
            for i, (name, args) in enumerate(calls, 1)
        ),
        finish_reason="tool_calls",
        usage=TokenUsage(prompt_tokens, completion_tokens),
    )


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """What a test model was asked."""

    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...]
    settings: ModelSettings


def split_text(content: str, pieces: int = 3) -> list[str]:
    """`content` cut into at most `pieces` nearly equal chunks (none for empty text)."""
    if not content:
        return []
    size = max(1, -(-len(content) // pieces))
    return [content[i : i + size] for i in range(0, len(content), size)]


class _RecordingModel(Model):
    def __init__(self) -> None:
        self.calls: list[RecordedCall] = []

    def images(self, call: int = -1) -> list[ReceivedImage]:
        """The inline images call `call` received (the last by default): set `sees_images`
        for a double that sees them; one that does not receives notes."""
        return images_in(self.calls[call].messages)

    def text(self, call: int = -1) -> str:
        """All the text call `call` received (content and text parts)."""
        return text_in(self.calls[call].messages)

    async def _reply(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        raise NotImplementedError

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> ModelResponse:
        settings = settings or ModelSettings()
        self.calls.append(RecordedCall(tuple(messages), tuple(tools), settings))
        return await self._reply(messages, tools, settings)

    async def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamItem]:
        response = await self.complete(messages, tools, settings)
        for piece in split_text(response.reasoning):
            yield ReasoningChunk(piece)
        for piece in split_text(response.text):
            await asyncio.sleep(0)
            yield TextChunk(piece)
        yield Done(response)


class FunctionModel(_RecordingModel):
    """Replies with whatever `function` returns (or raises) for each call."""

    name = "function"

    def __init__(self, function: ReplyFunction) -> None:
        super().__init__()
        self._function = function

    async def _reply(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        result = self._function(messages, tools, settings)
        if isinstance(result, Awaitable):
            result = await result
        if isinstance(result, Exception):
            raise result
        return result


class ScriptedModel(_RecordingModel):
    """Replies from a list, in order; an Exception in the list is raised instead."""

    name = "scripted"

    def __init__(self, replies: Sequence[Reply]) -> None:
        super().__init__()
        self._replies = list(replies)
        self._next = 0

    async def _reply(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        if self._next >= len(self._replies):
            raise ModelError(f"script exhausted after {len(self._replies)} replies")
        reply = self._replies[self._next]
        self._next += 1
        if isinstance(reply, Exception):
            raise reply
        return reply

    @property
    def remaining(self) -> int:
        return len(self._replies) - self._next

    def assert_complete(self) -> None:
        """Fail unless every scripted reply was used."""
        assert self.remaining == 0, f"{self.remaining} scripted replies were not used"
