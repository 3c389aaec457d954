"""The OpenAI-compatible provider against the fake server, and the shipped test models."""

from __future__ import annotations

from typing import Any

import pytest

from agent.llm.base import ModelError
from agent.llm.fakes.server import FakeOpenAIServer
from agent.llm.openai import OpenAIModel
from agent.llm.structured import json_reply
from agent.llm.testing import FunctionModel, ScriptedModel, text, tool_calls
from agent.llm.tool_names import WireNames
from records.messages import Done, Message, ModelSettings, TextChunk, ToolCall, ToolDefinition

CALC = ToolDefinition(
    "calculator", "calc", {"type": "object", "properties": {"expression": {"type": "string"}}}
)


def model(server: FakeOpenAIServer, attempts: int = 4) -> OpenAIModel:
    return OpenAIModel(
        "m",
        base_url=server.base_url,
        api_key="k",
        max_attempts=attempts,
        backoff_initial_seconds=0.01,
        backoff_max_seconds=0.02,
    )


async def test_retries_are_bounded_and_only_for_retryable_errors() -> None:
    async with FakeOpenAIServer([{"error": {"status": 500}, "repeat": -1}]) as server:
        llm = model(server, attempts=3)
        with pytest.raises(ModelError, match="500") as info:
            await llm.complete([Message("user", "hi")])
        assert info.value.retryable
        assert len(server.requests) == 3
        await llm.close()
    async with FakeOpenAIServer(
        [{"error": {"status": 401, "message": "bad key"}}, {"text": "no"}]
    ) as server:
        llm = model(server)
        with pytest.raises(ModelError, match="401"):
            await llm.complete([Message("user", "hi")])
        assert len(server.requests) == 1
        await llm.close()


async def test_connection_failures_are_retried_then_reported() -> None:
    llm = OpenAIModel(
        "m",
        base_url="http://127.0.0.1:9/v1",
        api_key="k",
        max_attempts=2,
        backoff_initial_seconds=0.01,
    )
    with pytest.raises(ModelError, match="cannot reach"):
        await llm.complete([Message("user", "hi")])
    await llm.close()


async def test_dropped_connection_mid_reply() -> None:
    async with FakeOpenAIServer([{"drop": True, "repeat": -1}]) as server:
        llm = model(server, attempts=2)
        with pytest.raises(ModelError):
            await llm.complete([Message("user", "hi")])
        await llm.close()


async def test_json_schema_falls_back_to_json_object() -> None:
    async with FakeOpenAIServer(
        [
            {"error": {"status": 400, "message": "response_format json_schema unsupported"}},
            {"json": {"a": 1}},
            {"json": {"b": 2}},
        ]
    ) as server:
        llm = model(server)
        settings = ModelSettings(json_schema={"type": "object"}, schema_name="thing")
        assert json_reply(await llm.complete([Message("user", "x")], settings=settings)) == {"a": 1}
        assert json_reply(await llm.complete([Message("user", "x")], settings=settings)) == {"b": 2}
        formats = [r.get("response_format", {}).get("type") for r in server.requests]
        assert formats == ["json_schema", "json_object", "json_object"]  # remembered
        assert server.requests[0]["response_format"]["json_schema"]["name"] == "thing"
        await llm.close()


async def test_request_shape_for_tool_calls_and_forced_choice() -> None:
    async with FakeOpenAIServer([{"text": "ok"}]) as server:
        llm = model(server)
        history = [
            Message("system", "s"),
            Message("user", "u"),
            Message(
                "assistant", "", tool_calls=(ToolCall("c1", "calculator", '{"expression": "1"}'),)
            ),
            Message("tool", "1", tool_call_id="c1", name="calculator"),
        ]
        await llm.complete(
            history,
            [CALC],
            ModelSettings(tool_choice="calculator", temperature=0.2, max_tokens=50, stop=("X",)),
        )
        sent = server.requests[0]
        assert sent["messages"][2] == {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "calculator", "arguments": '{"expression": "1"}'},
                }
            ],
        }
        assert sent["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": "1"}
        assert sent["tool_choice"] == {"type": "function", "function": {"name": "calculator"}}
        assert (sent["temperature"], sent["max_tokens"], sent["stop"]) == (0.2, 50, ["X"])
        await llm.close()


async def test_a_tool_is_built_for_the_wire_once_and_again_when_its_schema_changes() -> None:
    changed = ToolDefinition(CALC.name, CALC.description, {"type": "object", "properties": {}})
    async with FakeOpenAIServer([{"text": "ok", "repeat": 3}]) as server:
        llm = model(server)
        again = ToolDefinition(CALC.name, CALC.description, CALC.parameters)
        asked = [Message("user", "u")]
        built = [
            llm._request(asked, [tool], ModelSettings(), WireNames([tool.name]))["tools"][0]
            for tool in (CALC, again, changed)
        ]
        assert built[0] is built[1]  # the same schema: the same object, not a copy per call
        assert built[2]["function"]["parameters"] == {"type": "object", "properties": {}}
        for tools in ([CALC], [changed]):
            await llm.complete([Message("user", "u")], tools)
        assert [r["tools"][0]["function"]["parameters"] for r in server.requests] == [
            dict(CALC.parameters),
            {"type": "object", "properties": {}},
        ]
        await llm.close()


async def test_streaming_assembles_text_reasoning_tool_calls_and_usage() -> None:
    replies: list[dict[str, Any]] = [
        {
            "reasoning": "let me think",
            "text": "hello there",
            "chunks": 4,
            "usage": {"prompt_tokens": 7, "completion_tokens": 3},
        },
        {
            "tool_calls": [
                {"name": "calculator", "arguments": {"expression": "1+1"}},
                {"name": "calculator", "arguments": {"expression": "2"}},
            ]
        },
    ]
    async with FakeOpenAIServer(replies) as server:
        llm = model(server)
        items = [i async for i in llm.stream([Message("user", "hi")])]
        assert "".join(i.text for i in items if isinstance(i, TextChunk)) == "hello there"
        assert len([i for i in items if isinstance(i, TextChunk)]) > 1
        done = items[-1]
        assert isinstance(done, Done)
        assert done.response.reasoning == "let me think"
        assert done.response.usage.total_tokens == 10
        items = [i async for i in llm.stream([Message("user", "hi")], [CALC])]
        done = items[-1]
        assert isinstance(done, Done)
        assert [c.arguments() for c in done.response.tool_calls] == [
            {"expression": "1+1"},
            {"expression": "2"},
        ]
        assert done.response.finish_reason == "tool_calls"
        await llm.close()


async def test_scripted_and_function_models() -> None:
    scripted = ScriptedModel(
        [text("a"), tool_calls(("calculator", {"expression": "1"})), ModelError("down")]
    )
    assert (await scripted.complete([Message("user", "x")])).text == "a"
    assert (await scripted.complete([Message("user", "x")])).tool_calls[0].name == "calculator"
    with pytest.raises(ModelError):
        await scripted.complete([Message("user", "x")])
    scripted.assert_complete()
    with pytest.raises(ModelError, match="exhausted"):
        await scripted.complete([])
    unfinished = ScriptedModel([text("a")])
    with pytest.raises(AssertionError, match="1 scripted replies were not used"):
        unfinished.assert_complete()

    def echo(messages: object, tools: object, settings: ModelSettings) -> object:
        return text(f"tools={len(tools)} choice={settings.tool_choice}")  # type: ignore[arg-type]

    fn = FunctionModel(echo)  # type: ignore[arg-type]
    items = [
        i
        async for i in fn.stream(
            [Message("user", "x")], [CALC], ModelSettings(tool_choice="required")
        )
    ]
    assert isinstance(items[-1], Done)
    assert items[-1].response.text == "tools=1 choice=required"
    assert fn.calls[0].tools == (CALC,)


def test_json_reply_is_forgiving_but_not_blind() -> None:
    assert json_reply(text('```json\n{"a": 1}\n```')) == {"a": 1}
    assert json_reply(text('Sure! {"a": 2} hope that helps')) == {"a": 2}
    with pytest.raises(ValueError, match="not valid JSON"):
        json_reply(text("no json here"))


@pytest.mark.parametrize("reply", ["[" * 100_000, '{"a": ' * 100_000 + "1" + "}" * 100_000])
def test_json_nested_too_deeply_is_an_unusable_reply_not_a_crash(reply: str) -> None:
    with pytest.raises(ValueError, match="not valid JSON"):
        json_reply(text(reply))


async def test_a_refused_schema_falls_back_alone_other_schemas_keep_json_schema() -> None:
    refused = {"error": {"status": 400, "message": "this schema is not supported"}}
    async with FakeOpenAIServer(
        [{**refused, "match": "tenant one"}, {"json": {"a": 1}, "repeat": -1}]
    ) as server:
        llm = model(server)
        theirs = ModelSettings(json_schema={"type": "object", "x-one": True}, schema_name="one")
        mine = ModelSettings(json_schema={"type": "object"}, schema_name="two")
        await llm.complete([Message("user", "tenant one")], settings=theirs)
        await llm.complete([Message("user", "tenant two")], settings=mine)
        await llm.complete([Message("user", "tenant one again")], settings=theirs)
        formats = [r.get("response_format", {}).get("type") for r in server.requests]
        assert formats == ["json_schema", "json_object", "json_schema", "json_object"]
        sibling = llm.sibling("other-model", None, None)  # another model: its own record
        await sibling.complete([Message("user", "x")], settings=theirs)
        assert server.requests[-1]["response_format"]["type"] == "json_schema"
        await llm.close()
