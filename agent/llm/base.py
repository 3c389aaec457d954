"""The narrow interface every language model sits behind.

A `Model` takes messages, tool definitions and settings and returns a
`ModelResponse` (`complete`), or yields text and reasoning deltas followed by
the full response (`stream`). Providers live in their own modules and import
their SDK there only. Implementations are safe to call concurrently; a call
may be cancelled at any await, and must then release its connection.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator, Sequence

from records.messages import (
    Done,
    FailedAttempt,
    Message,
    ModelResponse,
    ModelSettings,
    ReasoningChunk,
    StreamItem,
    TextChunk,
    ToolDefinition,
)


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
        self.failed: tuple[FailedAttempt, ...] = ()
        """The providers of a fallback chain that failed the call (`agent.llm.providers`),
        for the usage ledger."""


class Model(abc.ABC):
    """A language model. Subclasses implement `complete`; `stream` defaults to it."""

    name: str = "model"
    max_tokens: int | None = None
    """The reply limit this model is configured with (None: the model's own)."""
    sees_images: bool = False
    """Whether the model takes images (the providers file's `images: true`,
    AGENTD_LLM_IMAGE_MODELS); one that does not gets a note naming each image's artifact."""

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
