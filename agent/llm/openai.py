"""A model behind any OpenAI-compatible chat completions endpoint (OpenAI, vLLM,
llama.cpp's server, Ollama, LiteLLM, ...), through the official `openai` client.

Retries 429, 5xx, timeouts and connection errors with exponential backoff and
jitter, a bounded number of times; never retries other 4xx answers. Asks for
structured output with `response_format: json_schema` and falls back to
`json_object` once an endpoint refuses the former. Assistant messages that
carry tool calls are sent with `content: ""` (llama.cpp rejects null).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

try:
    import openai
except ImportError as exc:  # pragma: no cover - openai is a dependency of agentd
    raise ImportError("the OpenAI-compatible provider needs `pip install openai`") from exc
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from agent.llm.base import (
    Done,
    Message,
    Model,
    ModelError,
    ModelResponse,
    ModelSettings,
    ReasoningChunk,
    StreamItem,
    TextChunk,
    ToolCall,
    ToolDefinition,
)
from agent.tasks import TokenUsage


def is_retryable(error: BaseException) -> bool:
    if isinstance(error, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code == 429 or error.status_code >= 500
    return False


def _message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["content"] = message.content or ""
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json or "{}"},
            }
            for call in message.tool_calls
        ]
    return out


def _usage(usage: Any) -> TokenUsage:
    if usage is None:
        return TokenUsage()
    details = getattr(usage, "completion_tokens_details", None)
    reasoning = getattr(details, "reasoning_tokens", None) or 0
    return TokenUsage(
        prompt_tokens=usage.prompt_tokens or 0,
        completion_tokens=usage.completion_tokens or 0,
        reasoning_tokens=reasoning,
    )


def _reasoning(part: Any) -> str:
    """Reasoning text, which endpoints send under different names."""
    for name in ("reasoning_content", "reasoning"):
        value = getattr(part, name, None)
        if value is None and getattr(part, "model_extra", None):
            value = part.model_extra.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


class OpenAIModel(Model):
    """One model name on one OpenAI-compatible endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout_seconds: float = 60.0,
        max_attempts: int = 4,
        backoff_initial_seconds: float = 0.5,
        backoff_max_seconds: float = 8.0,
        client: openai.AsyncOpenAI | None = None,
        concurrency: asyncio.Semaphore | None = None,
    ) -> None:
        self.name = model
        self._concurrency: AbstractAsyncContextManager[Any] = (
            concurrency or contextlib.nullcontext()
        )
        self._client = client or openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or "unused",
            timeout=timeout_seconds,
            max_retries=0,  # retries are ours, below
        )
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._attempts = max_attempts
        self._backoff = (backoff_initial_seconds, backoff_max_seconds)
        self._json_schema_supported = True

    async def close(self) -> None:
        await self._client.close()

    def _request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        settings: ModelSettings,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.name,
            "messages": [_message(m) for m in messages],
        }
        temperature = (
            settings.temperature if settings.temperature is not None else self._temperature
        )
        if temperature is not None:
            request["temperature"] = temperature
        max_tokens = settings.max_tokens or self._max_tokens
        if max_tokens:
            request["max_tokens"] = max_tokens
        if settings.stop:
            request["stop"] = list(settings.stop)
        if tools:
            request["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": dict(t.parameters),
                    },
                }
                for t in tools
            ]
            if settings.tool_choice in ("auto", "none", "required"):
                request["tool_choice"] = settings.tool_choice
            else:
                request["tool_choice"] = {
                    "type": "function",
                    "function": {"name": settings.tool_choice},
                }
        if settings.json_schema is not None:
            if self._json_schema_supported:
                request["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {
                        "name": settings.schema_name,
                        "schema": dict(settings.json_schema),
                    },
                }
            else:
                request["response_format"] = {"type": "json_object"}
        return request

    async def _create(self, request: dict[str, Any]) -> Any:
        """Send with retries; on a refused json_schema, fall back to json_object once."""
        try:
            try:  # the common case, without the retry machinery
                return await self._client.chat.completions.create(**request)
            except openai.APIError as first:
                if not is_retryable(first) or self._attempts <= 1:
                    raise
            await asyncio.sleep(self._backoff[0])
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(self._attempts - 1),
                wait=wait_exponential_jitter(multiplier=self._backoff[0], max=self._backoff[1]),
                retry=retry_if_exception(is_retryable),
                reraise=True,
            ):
                with attempt:
                    return await self._client.chat.completions.create(**request)
        except openai.BadRequestError as error:
            format_ = request.get("response_format", {})
            if format_.get("type") == "json_schema":
                self._json_schema_supported = False
                return await self._create({**request, "response_format": {"type": "json_object"}})
            raise ModelError(
                f"the model endpoint rejected the request (400): {error.message}"
            ) from None
        except openai.APIStatusError as error:
            raise ModelError(
                f"the model endpoint answered {error.status_code}: {error.message}",
                retryable=is_retryable(error),
            ) from None
        except openai.APIConnectionError as error:
            raise ModelError(f"cannot reach the model endpoint: {error}", retryable=True) from None
        raise AssertionError("unreachable")  # pragma: no cover

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> ModelResponse:
        async with self._concurrency:
            response = await self._create(
                self._request(messages, tools, settings or ModelSettings())
            )
        if not response.choices:
            raise ModelError("the model endpoint returned no choices")
        choice = response.choices[0]
        message = choice.message
        calls = tuple(
            ToolCall(call.id or f"call_{i}", call.function.name, call.function.arguments or "")
            for i, call in enumerate(message.tool_calls or (), 1)
            if getattr(call, "function", None) is not None
        )
        return ModelResponse(
            text=message.content or "",
            reasoning=_reasoning(message),
            tool_calls=calls,
            finish_reason=choice.finish_reason or "stop",
            usage=_usage(response.usage),
            model=str(getattr(response, "model", "") or self.name),
        )

    async def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamItem]:
        request = self._request(messages, tools, settings or ModelSettings())
        request["stream"] = True
        request["stream_options"] = {"include_usage": True}
        async with self._concurrency:  # held until the reply has streamed in whole
            async for item in self._stream(request):
                yield item

    async def _stream(self, request: dict[str, Any]) -> AsyncIterator[StreamItem]:
        stream = await self._create(request)
        text: list[str] = []
        reasoning: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        finish = "stop"
        usage = TokenUsage()
        answered_by = self.name
        try:
            async for chunk in stream:
                answered_by = str(getattr(chunk, "model", "") or answered_by)
                if chunk.usage is not None:
                    usage = _usage(chunk.usage)
                for choice in chunk.choices or ():
                    delta = choice.delta
                    if delta is None:
                        continue
                    thought = _reasoning(delta)
                    if thought:
                        reasoning.append(thought)
                        yield ReasoningChunk(thought)
                    if delta.content:
                        text.append(delta.content)
                        yield TextChunk(delta.content)
                    for part in delta.tool_calls or ():
                        slot = calls.setdefault(part.index, {"id": "", "name": "", "arguments": ""})
                        if part.id:
                            slot["id"] = part.id
                        if part.function is not None:
                            slot["name"] += part.function.name or ""
                            slot["arguments"] += part.function.arguments or ""
                    if choice.finish_reason:
                        finish = choice.finish_reason
        except openai.APIError as error:
            raise ModelError(f"the model stream failed: {error}", retryable=True) from None
        finally:
            await stream.close()
        tool_calls = tuple(
            ToolCall(slot["id"] or f"call_{index}", slot["name"], slot["arguments"])
            for index, slot in sorted(calls.items())
        )
        yield Done(
            ModelResponse(
                text="".join(text),
                reasoning="".join(reasoning),
                tool_calls=tool_calls,
                finish_reason=finish,
                usage=usage,
                model=answered_by,
            )
        )
