"""Reading OpenAI-compatible chat replies, whole or streamed, as plain JSON.

Endpoints differ (reasoning under `reasoning_content` or `reasoning`, usage
sometimes missing, fields null rather than absent), so every field is read
defensively: a value of the wrong type counts as absent, never as a crash.
"""

from __future__ import annotations

from typing import Any

from records.messages import ModelResponse, ReasoningChunk, StreamItem, TextChunk, ToolCall
from records.tasks import TokenUsage


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage(data: Any) -> TokenUsage:
    found = _dict(data)
    details = _dict(found.get("completion_tokens_details"))
    prompt = _int(found.get("prompt_tokens"))
    cached = _int(_dict(found.get("prompt_tokens_details")).get("cached_tokens"))
    return TokenUsage(
        prompt,
        _int(found.get("completion_tokens")),
        _int(details.get("reasoning_tokens")),
        cached_prompt_tokens=min(cached, prompt),
    )


def reasoning(part: dict[str, Any]) -> str:
    """Reasoning text, which endpoints send under different names."""
    return _str(part.get("reasoning_content")) or _str(part.get("reasoning"))


def completion(data: Any, model: str) -> ModelResponse | None:
    """A whole reply (`chat.completion`); None when it has no choice."""
    found = _dict(data)
    choices = _list(found.get("choices"))
    if not choices:
        return None
    choice = _dict(choices[0])
    message = _dict(choice.get("message"))
    calls = []
    for index, call in enumerate(_list(message.get("tool_calls")), 1):
        function = _dict(_dict(call).get("function"))
        if function:
            name, arguments = _str(function.get("name")), _str(function.get("arguments"))
            calls.append(ToolCall(_str(call.get("id")) or f"call_{index}", name, arguments))
    return ModelResponse(
        text=_str(message.get("content")),
        reasoning=reasoning(message),
        tool_calls=tuple(calls),
        finish_reason=_str(choice.get("finish_reason")) or "stop",
        usage=usage(found.get("usage")),
        model=_str(found.get("model")) or model,
    )


class StreamedReply:
    """Assembles a streamed reply (`chat.completion.chunk`s) into deltas and a response."""

    def __init__(self, model: str) -> None:
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, dict[str, str]] = {}
        self._finish = "stop"
        self._usage = TokenUsage()
        self._model = model

    def add(self, data: Any) -> list[StreamItem]:
        """The deltas one chunk carries."""
        chunk = _dict(data)
        self._model = _str(chunk.get("model")) or self._model
        if chunk.get("usage") is not None:
            self._usage = usage(chunk.get("usage"))
        items: list[StreamItem] = []
        for choice in map(_dict, _list(chunk.get("choices"))):
            delta = _dict(choice.get("delta"))
            thought = reasoning(delta)
            if thought:
                self._reasoning.append(thought)
                items.append(ReasoningChunk(thought))
            content = _str(delta.get("content"))
            if content:
                self._text.append(content)
                items.append(TextChunk(content))
            for part in map(_dict, _list(delta.get("tool_calls"))):
                self._add_call(part)
            self._finish = _str(choice.get("finish_reason")) or self._finish
        return items

    def _add_call(self, part: dict[str, Any]) -> None:
        slot = self._calls.setdefault(
            _int(part.get("index")), {"id": "", "name": "", "arguments": ""}
        )
        slot["id"] = _str(part.get("id")) or slot["id"]
        function = _dict(part.get("function"))
        slot["name"] += _str(function.get("name"))
        slot["arguments"] += _str(function.get("arguments"))

    def response(self) -> ModelResponse:
        calls = tuple(
            ToolCall(slot["id"] or f"call_{index}", slot["name"], slot["arguments"])
            for index, slot in sorted(self._calls.items())
        )
        return ModelResponse(
            text="".join(self._text),
            reasoning="".join(self._reasoning),
            tool_calls=calls,
            finish_reason=self._finish,
            usage=self._usage,
            model=self._model,
        )
