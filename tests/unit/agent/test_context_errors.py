"""Context-length errors: the fake server's own count, and how the OpenAI model reports them."""

from __future__ import annotations

import pytest

from agent.llm.base import ModelError
from agent.llm.fakes.server import FakeOpenAIServer
from agent.llm.fakes.window import prompt_tokens, refusal
from agent.llm.openai import OpenAIModel
from records.messages import Message, ModelSettings


def test_the_fake_window_counts_messages_tools_and_the_reply_limit() -> None:
    body = {
        "messages": [{"role": "user", "content": "x" * 400}],
        "tools": [{"type": "function", "function": {"name": "t", "parameters": {}}}],
    }
    tool_json = '{"type": "function", "function": {"name": "t", "parameters": {}}}'
    assert prompt_tokens(body) == 4 + 100 + -(-len(tool_json) // 4)
    assert refusal(body, 200) is None
    refused = refusal({**body, "max_tokens": 100}, 200)
    assert refused is not None
    assert "maximum context length is 200 tokens" in refused


async def test_a_request_past_the_window_is_a_context_error_not_a_schema_refusal() -> None:
    async with FakeOpenAIServer([{"text": "never"}], context_window=100) as llm:
        model = OpenAIModel("fake-model", base_url=llm.base_url, max_attempts=1)
        try:
            with pytest.raises(ModelError) as raised:
                await model.complete(
                    [Message("user", "y" * 1_000)],
                    settings=ModelSettings(json_schema={"type": "object"}, max_tokens=10),
                )
        finally:
            await model.close()
        assert raised.value.context_too_long
        assert not raised.value.retryable
        assert llm.refused_too_long == 1
        assert len(llm.requests) == 1  # no json_object retry of a request that cannot fit


async def test_reasoning_models_get_max_completion_tokens() -> None:
    replies = [{"text": "a"}, {"text": "b"}]
    async with FakeOpenAIServer(replies) as llm:
        for name in ("o3-mini", "gpt-4o"):
            model = OpenAIModel(name, base_url=llm.base_url)
            try:
                await model.complete([Message("user", "hi")], settings=ModelSettings(max_tokens=50))
            finally:
                await model.close()
        first, second = llm.requests
        assert first["max_completion_tokens"] == 50
        assert "max_tokens" not in first
        assert second["max_tokens"] == 50
