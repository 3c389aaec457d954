"""The narrow interface every language model sits behind.

A `Model` takes messages, tool definitions and settings and returns a
`ModelResponse` (`complete`), or yields text and reasoning deltas followed by
the full response (`stream`). Providers live in their own modules and import
their SDK there only. Implementations are safe to call concurrently; a call
may be cancelled at any await, and must then release its connection.
"""

from __future__ import annotations

import abc
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.tasks import TokenUsage

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the model asked for."""

    id: str
    """The model's id for the call; tool results refer to it."""
    name: str
    """The tool's name."""
    arguments_json: str
    """The arguments exactly as the model wrote them."""

    def arguments(self) -> dict[str, Any]:
        """The parsed arguments; ValueError when they are not a JSON object (or are nested
        deeper than MAX_ARGUMENT_DEPTH levels)."""
        text = self.arguments_json.strip() or "{}"
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"arguments are not valid JSON: {exc.msg} at position {exc.pos}"
            ) from None
        except RecursionError:  # nested far too deep to parse at all
            raise ValueError(
                f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"
            ) from None
        if _nesting(value) > MAX_ARGUMENT_DEPTH:
            raise ValueError(f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels")
        if not isinstance(value, dict):
            raise ValueError("arguments must be a JSON object")
        return value


MAX_ARGUMENT_DEPTH = 64
"""Deeper tool-call arguments are refused: a failed call, not a crashed task."""


def _nesting(value: Any) -> int:
    """The deepest nesting of lists and objects in parsed JSON (without recursion)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    """For assistant messages that call tools."""
    tool_call_id: str = ""
    """For tool messages: the call answered."""
    name: str = ""
    """For tool messages: the tool's name."""


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A tool as the model sees it."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """Per-call settings."""

    temperature: float | None = None
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()
    """Stop sequences."""
    tool_choice: str = "auto"
    """"auto", "none", "required", or the name of the one tool the model must call."""
    json_schema: Mapping[str, Any] | None = None
    """When set, ask for a JSON reply matching this schema (structured output)."""
    schema_name: str = "reply"
    """The name sent with `json_schema`."""


@dataclass(frozen=True, slots=True)
class ModelResponse:
    """A complete model reply."""

    text: str = ""
    reasoning: str = ""
    """Reasoning text, where the endpoint sends it."""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"
    usage: TokenUsage = field(default_factory=TokenUsage)
    model: str = ""
    """The model that answered, as the endpoint named it (empty when it did not say)."""
    provider: str = ""
    """The provider that answered (empty: the server's own endpoint)."""


@dataclass(frozen=True, slots=True)
class TextChunk:
    """A piece of answer text, as the model produces it."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningChunk:
    """A piece of reasoning text, as the model produces it."""

    text: str


@dataclass(frozen=True, slots=True)
class Done:
    """The end of a stream: the whole response."""

    response: ModelResponse


@dataclass(frozen=True, slots=True)
class Discarded:
    """The text streamed so far is void: its provider failed mid-reply and another one
    answers from the start (`agent.llm.providers`)."""

    provider: str
    model: str
    reason: str


StreamItem = TextChunk | ReasoningChunk | Done | Discarded


class ModelError(Exception):
    """The model endpoint failed (after retries) or answered something unusable."""

    def __init__(
        self, message: str, *, retryable: bool = False, context_too_long: bool = False
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.context_too_long = context_too_long
        """The endpoint said the request does not fit the model's context window."""


class Model(abc.ABC):
    """A language model. Subclasses implement `complete`; `stream` defaults to it."""

    name: str = "model"
    max_tokens: int | None = None
    """The reply limit this model is configured with (None: the model's own)."""

    async def close(self) -> None:  # noqa: B027 - optional hook; most models hold nothing
        """Release connections. Called once, when the engine stops."""

    @abc.abstractmethod
    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> ModelResponse:
        """One reply. Raises ModelError."""

    async def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamItem]:
        """Deltas as they come, then `Done`. Raises ModelError."""
        response = await self.complete(messages, tools, settings)
        if response.reasoning:
            yield ReasoningChunk(response.reasoning)
        if response.text:
            yield TextChunk(response.text)
        yield Done(response)
