"""What is said to and by a language model: messages, tool calls and definitions,
settings, replies and the pieces of a streamed reply. Plain frozen records, kept in
checkpoints and conversation history; `agent.llm.base.Model` is what produces them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from records.parts import MessagePart
from records.tasks import TokenUsage

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
    """One chat message: its text (`content`) and, after it, any further parts in their
    order (images, more text). Whatever reads only text reads `content` and the
    `TextPart`s; redaction touches text parts only."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    """For assistant messages that call tools."""
    tool_call_id: str = ""
    """For tool messages: the call answered."""
    name: str = ""
    """For tool messages: the tool's name."""
    parts: tuple[MessagePart, ...] = ()
    """Parts after `content`, in order; empty for a text-only message (most messages)."""


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

    def limited(self, max_tokens: int) -> ModelSettings:
        """These settings with another reply limit (`dataclasses.replace`, without its cost
        on every metered call)."""
        return ModelSettings(
            self.temperature,
            max_tokens,
            self.stop,
            self.tool_choice,
            self.json_schema,
            self.schema_name,
        )


@dataclass(frozen=True, slots=True)
class FailedAttempt:
    """A provider of a fallback chain that failed a call (the next one was tried)."""

    provider: str
    model: str
    seconds: float
    error: str


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
    asked_model: str = ""
    """The model name the call asked its provider for (what prices are keyed by); empty:
    `model`."""
    failed: tuple[FailedAttempt, ...] = ()
    """Providers of its fallback chain that failed before this one answered."""


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
