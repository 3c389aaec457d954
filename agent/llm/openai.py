"""A model behind any OpenAI-compatible chat completions endpoint (OpenAI, vLLM,
llama.cpp's server, Ollama, LiteLLM, ...), through the official `openai` client.

Retries 429, 5xx, timeouts and connection errors with exponential backoff and
jitter, a bounded number of times; never retries other 4xx answers. Asks for
structured output with `response_format: json_schema` and falls back to
`json_object` for a schema the endpoint refused (remembered per model and schema:
one caller's schema that an endpoint refuses never changes how another's is asked
for). Tool names the endpoint would refuse
(`notes.search`) travel under wire names (`tool_names`). Assistant messages that
carry tool calls are sent with `content: ""` (llama.cpp rejects null). A message with
parts is sent with a list of `text` and `image_url` parts (a text-only message keeps its
plain string); images reach a model that sees images only (`sees_images`), any other gets
a note naming the image's artifact.
"""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

try:
    import openai
except ImportError as exc:  # pragma: no cover - openai is a dependency of agentd
    raise ImportError("the OpenAI-compatible provider needs `pip install openai`") from exc
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from agent.llm import openai_replies as replies
from agent.llm.base import Model, ModelError
from agent.llm.tool_names import WireNames
from records.messages import Done, Message, ModelResponse, ModelSettings, StreamItem, ToolDefinition
from records.parts import ImagePart, InlineImage, MessagePart, unseen_note
from records.tools.audit import digest


def is_retryable(error: BaseException) -> bool:
    if isinstance(error, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code == 429 or error.status_code >= 500
    return False


CONTEXT_TOO_LONG_CODES = frozenset({"context_length_exceeded", "string_above_max_length"})
CONTEXT_TOO_LONG_WORDS = (
    "maximum context length",
    "context length",
    "context_length",
    "context window",
    "prompt is too long",
    "too many tokens",
    "input is too long",
)


def is_context_too_long(error: openai.APIStatusError) -> bool:
    """Whether a 400 (or 413) says the request does not fit the model's window: OpenAI's
    `context_length_exceeded` code, or the words vLLM, llama.cpp, Ollama and others use."""
    if error.status_code not in (400, 413):
        return False
    if getattr(error, "code", None) in CONTEXT_TOO_LONG_CODES:
        return True
    text = str(error.message).lower()
    return any(words in text for words in CONTEXT_TOO_LONG_WORDS)


REPLY_LIMIT_FIELD = re.compile(r"^(?:o\d|gpt-5)")
"""Models that take the reply limit as `max_completion_tokens` (they refuse `max_tokens`)."""


def _part(part: MessagePart, sees: bool) -> dict[str, Any]:
    """One content part: text, or an image inline for a model that sees images (a note
    naming its artifact for any other, or for an image that reached here unread)."""
    if isinstance(part, InlineImage) and sees:
        data = base64.b64encode(part.data).decode("ascii")
        url = f"data:{part.source.media_type};base64,{data}"
        return {"type": "image_url", "image_url": {"url": url, "detail": part.source.detail}}
    if isinstance(part, InlineImage | ImagePart):
        return {"type": "text", "text": unseen_note(_image(part))}
    return {"type": "text", "text": part.text}


def _image(part: ImagePart | InlineImage) -> ImagePart:
    return part.source if isinstance(part, InlineImage) else part


def _content(message: Message, sees: bool) -> str | list[dict[str, Any]]:
    """The message's content: its plain string without parts (no change on the wire for
    text-only messages), else a list of parts, its text first."""
    if not message.parts:
        return message.content
    parts = [{"type": "text", "text": message.content}] if message.content else []
    parts.extend(_part(part, sees) for part in message.parts)
    return parts


def _messages(messages: Sequence[Message], names: WireNames, sees: bool) -> list[dict[str, Any]]:
    """The request's messages. Chat completions take no images in `role: tool` messages:
    a tool message's parts are sent in one user message right after the run of tool
    results it belongs to (its text stays in the tool message)."""
    sent: list[dict[str, Any]] = []
    held: list[MessagePart] = []
    for message in messages:
        if message.role != "tool" and held:
            sent.append(_tool_parts(held, sees))
            held = []
        if message.role == "tool":
            sent.append(
                {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
            )
            held.extend(message.parts)
            continue
        sent.append(_message(message, names, sees))
    if held:
        sent.append(_tool_parts(held, sees))
    return sent


def _tool_parts(parts: Sequence[MessagePart], sees: bool) -> dict[str, Any]:
    said = [{"type": "text", "text": "Files the tools above returned:"}]
    return {"role": "user", "content": [*said, *(_part(part, sees) for part in parts)]}


def _message(message: Message, names: WireNames, sees: bool) -> dict[str, Any]:
    """A system, user or assistant message (tool messages: `_messages`). Only user
    messages carry images (chat completions refuses them from any other role)."""
    out: dict[str, Any] = {
        "role": message.role,
        "content": _content(message, sees and message.role == "user"),
    }
    if message.tool_calls:
        if not message.parts:
            out["content"] = message.content or ""
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": names.wire(call.name),
                    "arguments": call.arguments_json or "{}",
                },
            }
            for call in message.tool_calls
        ]
    return out


def _names(messages: Sequence[Message], tools: Sequence[ToolDefinition]) -> WireNames:
    """The wire names of a request's tools and of the tools its history called."""
    called = (call.name for message in messages for call in message.tool_calls)
    return WireNames([*(tool.name for tool in tools), *called])


def _named(response: ModelResponse, names: WireNames) -> ModelResponse:
    """The reply with its tool calls naming agentd's tools again."""
    if not response.tool_calls:
        return response
    calls = tuple(replace(call, name=names.local(call.name)) for call in response.tool_calls)
    return replace(response, tool_calls=calls)


_TOOLS: dict[tuple[str, str, str], tuple[Mapping[str, Any], dict[str, Any]]] = {}
"""Each tool as sent, by wire name, name and description, with the schema it was made
from: every call of every task offers the same few tools, so each is built (and held)
once."""
MAX_TOOLS = 4096
MAX_REFUSED_SCHEMAS = 1_000
"""Schemas an endpoint refused that are remembered (then forgotten all at once)."""


def _tool(tool: ToolDefinition, wire: str) -> dict[str, Any]:
    key = (wire, tool.name, tool.description)
    kept = _TOOLS.get(key)
    if kept is not None and kept[0] is tool.parameters:
        return kept[1]
    sent = {
        "type": "function",
        "function": {
            "name": wire,
            "description": tool.description,
            "parameters": dict(tool.parameters),
        },
    }
    if len(_TOOLS) >= MAX_TOOLS:
        _TOOLS.clear()
    _TOOLS[key] = (tool.parameters, sent)
    return sent


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
        image_models: frozenset[str] = frozenset(),
    ) -> None:
        self.name = model
        self.image_models = image_models
        """The model names of this endpoint that take images (its siblings share it)."""
        self.sees_images = model in image_models
        self._client = client or openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or "unused",
            timeout=timeout_seconds,
            max_retries=0,  # retries are ours, below
        )
        self._temperature = temperature
        self._max_tokens = max_tokens
        self.max_tokens = max_tokens
        self._attempts = max_attempts
        self._backoff = (backoff_initial_seconds, backoff_max_seconds)
        self._refused_schemas: set[str] = set()
        """Digests of the output schemas this endpoint refused for this model."""

    async def close(self) -> None:
        await self._client.close()

    def sibling(self, name: str, temperature: float | None, max_tokens: int | None) -> OpenAIModel:
        """Another model of the same endpoint, sharing this one's client (and closed with
        it), with its own sampling where given."""
        model = OpenAIModel(
            name,
            client=self._client,
            temperature=temperature if temperature is not None else self._temperature,
            max_tokens=max_tokens if max_tokens is not None else self._max_tokens,
            max_attempts=self._attempts,
            backoff_initial_seconds=self._backoff[0],
            backoff_max_seconds=self._backoff[1],
            image_models=self.image_models,
        )
        return model

    def _request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        settings: ModelSettings,
        names: WireNames,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.name,
            "messages": _messages(messages, names, self.sees_images),
        }
        temperature = (
            settings.temperature if settings.temperature is not None else self._temperature
        )
        if temperature is not None:
            request["temperature"] = temperature
        max_tokens = settings.max_tokens or self._max_tokens
        if max_tokens:
            field = "max_tokens"
            if REPLY_LIMIT_FIELD.match(self.name.rsplit("/", 1)[-1].lower()):
                field = "max_completion_tokens"
            request[field] = max_tokens
        if settings.stop:
            request["stop"] = list(settings.stop)
        if tools:
            request["tools"] = [_tool(t, names.wire(t.name)) for t in tools]
            if settings.tool_choice in ("auto", "none", "required"):
                request["tool_choice"] = settings.tool_choice
            else:
                request["tool_choice"] = {
                    "type": "function",
                    "function": {"name": names.wire(settings.tool_choice)},
                }
        if settings.json_schema is not None:
            refused = self._refused_schemas  # digests: the same schema in any key order
            if not refused or digest(settings.json_schema) not in refused:
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

    async def _send(self, request: dict[str, Any]) -> Any:
        """POST the request as it is and read the reply as plain JSON: the request is plain
        JSON already, and the SDK's conversion of typed parameters and replies costs
        milliseconds of CPU per call. The client's `post` is its documented way to send
        any request; its errors, retries and streaming (SSE) are the SDK's own."""
        if request.get("stream"):
            return await self._client.post(
                "/chat/completions",
                body=request,
                cast_to=object,
                stream=True,
                stream_cls=openai.AsyncStream[object],
            )
        return await self._client.post("/chat/completions", body=request, cast_to=object)

    async def _create(self, request: dict[str, Any]) -> Any:
        """Send with retries; on a refused json_schema, fall back to json_object once."""
        try:
            try:  # the common case, without the retry machinery
                return await self._send(request)
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
                    return await self._send(request)
        except openai.APIStatusError as error:
            if is_context_too_long(error):
                raise ModelError(
                    f"the request does not fit the model's context window "
                    f"({error.status_code}): {error.message}",
                    context_too_long=True,
                ) from None
            if not isinstance(error, openai.BadRequestError):
                raise ModelError(
                    f"the model endpoint answered {error.status_code}: {error.message}",
                    retryable=is_retryable(error),
                ) from None
            format_ = request.get("response_format", {})
            if format_.get("type") == "json_schema":
                if len(self._refused_schemas) >= MAX_REFUSED_SCHEMAS:
                    self._refused_schemas.clear()
                self._refused_schemas.add(digest(format_["json_schema"]["schema"]))
                return await self._create({**request, "response_format": {"type": "json_object"}})
            raise ModelError(
                f"the model endpoint rejected the request (400): {error.message}"
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
        names = _names(messages, tools)
        request = self._request(messages, tools, settings or ModelSettings(), names)
        response = replies.completion(await self._create(request), self.name)
        if response is None:
            raise ModelError("the model endpoint returned no choices")
        return _named(response, names)

    async def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamItem]:
        names = _names(messages, tools)
        request = self._request(messages, tools, settings or ModelSettings(), names)
        request["stream"] = True
        request["stream_options"] = {"include_usage": True}
        async for item in self._stream(request):
            yield Done(_named(item.response, names)) if isinstance(item, Done) else item

    async def _stream(self, request: dict[str, Any]) -> AsyncIterator[StreamItem]:
        stream = await self._create(request)
        reply = replies.StreamedReply(self.name)
        try:
            async for chunk in stream:
                for item in reply.add(chunk):
                    yield item
        except openai.APIError as error:
            raise ModelError(f"the model stream failed: {error}", retryable=True) from None
        finally:
            await stream.close()
        yield Done(reply.response())
