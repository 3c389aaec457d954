"""The fake OpenAI-compatible server's scripts: cycling and repeating, a part per role
(told apart from the requests themselves), the request log and the banner."""

from __future__ import annotations

import io
import json
import re
from datetime import datetime
from typing import Any

import pytest

from agent import prompts
from agent.llm.base import ModelError
from agent.llm.fakes.command import banner
from agent.llm.fakes.script import Script, role_of
from agent.llm.fakes.server import FakeOpenAIServer
from agent.llm.openai import OpenAIModel
from agent.modes import critic, planner
from agent.running.answers import REFORMAT
from records.messages import Message, ModelSettings, ToolDefinition
from records.plan import MAX_PLAN_STEPS
from records.tools.model import PermissionLevel, RiskLevel, ToolSpec

CALC = ToolDefinition("calculator", "calc", {"type": "object"})
SPEC = ToolSpec(
    "calculator", "calc", {"type": "object"}, "math", PermissionLevel.NONE, RiskLevel.LOW, True, 5
)


def model(server: FakeOpenAIServer) -> OpenAIModel:
    return OpenAIModel("m", base_url=server.base_url, api_key="k", max_attempts=1)


async def texts(server: FakeOpenAIServer, count: int, system: str = "s") -> list[str]:
    llm = model(server)
    try:
        said = [
            (await llm.complete([Message("system", system), Message("user", f"ask {i}")])).text
            for i in range(count)
        ]
    finally:
        await llm.close()
    return said


async def test_a_cycling_script_starts_over_when_no_reply_is_left() -> None:
    script = Script.parse({"cycle": True, "replies": [{"text": "a"}, {"text": "b", "repeat": 2}]})
    async with FakeOpenAIServer(script) as server:
        assert await texts(server, 7) == ["a", "b", "b", "a", "b", "b", "a"]
        assert script.shared.round == 3


async def test_without_cycle_a_script_is_played_once_then_exhausted() -> None:
    async with FakeOpenAIServer(Script.parse([{"text": "a"}, {"text": "b"}])) as server:
        assert await texts(server, 2) == ["a", "b"]
        llm = model(server)
        with pytest.raises(ModelError, match="script exhausted: no reply left in replies"):
            await llm.complete([Message("user", "again")])
        await llm.close()
        server.assert_complete()


async def test_a_cycling_part_keeps_its_place_when_a_request_matches_nothing() -> None:
    script = Script.parse({"cycle": True, "replies": [{"match": "x", "text": "X"}, {"text": "_"}]})
    part = script.shared
    assert part.take("x") is not None
    assert part.take("nothing matches x... yes it does") is not None  # `_` (x is used)
    answer = part.take("y")  # nothing left for it in round 1: round 2 begins
    assert answer is not None
    assert (answer.entry, answer.round) == ("replies[1]", 2)
    empty = Script.parse({"cycle": True, "replies": [{"match": "x", "text": "X"}]}).shared
    assert empty.take("x") is not None
    assert empty.take("z") is None  # no reply would ever answer it: no restart
    assert (empty.round, empty.remaining) == (1, 0)


def _system(prompt: str, instructions: str = "") -> list[dict[str, Any]]:
    content = f"{instructions}\n\n{prompt}" if instructions else prompt
    return [{"role": "system", "content": content}, {"role": "user", "content": "task"}]


@pytest.mark.parametrize("instructions", ["", "You are the support assistant of Acme."])
def test_the_role_of_a_request_is_read_from_the_engine_prompts(instructions: str) -> None:
    def role(prompt: str, schema: str = "") -> str | None:
        body: dict[str, Any] = {"messages": _system(prompt, instructions)}
        if schema:
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": schema}}
        return role_of(body)

    assert role(prompts.planner_system([SPEC], MAX_PLAN_STEPS), planner.SETTINGS.schema_name) == (
        "planner"
    )
    assert role(prompts.planner_system([SPEC], MAX_PLAN_STEPS)) == "planner"  # json_object
    assert role(prompts.CRITIC_SYSTEM, str(critic.SETTINGS.schema_name)) == "critic"
    assert role(prompts.CRITIC_SYSTEM) == "critic"
    assert role(prompts.EXECUTOR_SYSTEM) == "executor"
    assert role(prompts.FUNCTION_CALLING_SYSTEM) == "executor"
    assert role(prompts.react_system([SPEC])) == "executor"
    assert role(prompts.SYNTHESIZER_SYSTEM) == "synthesizer"
    assert role(REFORMAT, "answer") == "synthesizer"
    assert role(prompts.SUMMARIZER_SYSTEM) == "summarizer"
    assert role("You are a pirate.") is None
    assert role_of({"messages": [{"role": "user", "content": prompts.CRITIC_SYSTEM}]}) is None


async def test_each_role_is_answered_from_its_own_part_and_others_from_the_shared_one() -> None:
    script = Script.parse(
        {
            "roles": {
                "planner": [{"json": {"steps": []}}],
                "critic": {"replies": [{"text": "verdict"}], "cycle": True},
            },
            "replies": [{"text": "shared", "repeat": -1}],
        }
    )
    async with FakeOpenAIServer(script) as server:
        llm = model(server)
        plan = ModelSettings(json_schema={"type": "object"}, schema_name="plan")
        planner_asks = [Message("system", prompts.planner_system([], 3)), Message("user", "t")]
        critic_asks = [Message("system", prompts.CRITIC_SYSTEM), Message("user", "t")]
        assert (await llm.complete(planner_asks, settings=plan)).text == '{"steps": []}'
        assert [(await llm.complete(critic_asks)).text for _ in range(3)] == ["verdict"] * 3
        synthesizer_asks = [Message("system", prompts.SYNTHESIZER_SYSTEM), Message("user", "t")]
        assert (await llm.complete(synthesizer_asks)).text == "shared"
        with pytest.raises(ModelError, match=r"no reply left in roles\.planner"):
            await llm.complete(planner_asks, settings=plan)  # its part is used up
        await llm.close()


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        ([{"txt": "hi"}], "replies[0]: unknown key 'txt' (did you mean 'text'?)"),
        ({"replies": [], "cylce": True}, "the script: unknown key 'cylce' (did you mean 'cycle'?)"),
        ({"roles": {"planer": []}}, "roles: unknown role 'planer' (did you mean 'planner'?)"),
        ({"roles": {"routr": []}}, "roles: unknown role 'routr' (did you mean 'router'?)"),
        ({"roles": {"critic": [{"text": "x", "repeat": 0}]}}, "roles.critic[0]: repeat is"),
        ({"roles": {"critic": {"replies": [], "cycle": "yes"}}}, "roles.critic.cycle is"),
        ([{"tool_calls": [{"name": "c", "args": {}}]}], "replies[0].tool_calls[0]: unknown key"),
        ("hello", "a script is a JSON list of replies"),
    ],
)
def test_a_script_that_cannot_be_played_says_what_is_wrong_and_where(
    script: object, problem: str
) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(problem)):
        Script.parse(script)


async def test_the_log_has_one_json_line_per_request() -> None:
    log = io.StringIO()
    script = Script.parse(
        {"roles": {"critic": [{"text": "fine"}]}, "replies": [{"match": "2+2", "text": "4"}]}
    )
    async with FakeOpenAIServer(script, log=log) as server:
        llm = model(server)
        long = "2+2 " + "and more " * 40
        await llm.complete([Message("system", "s"), Message("user", long)], [CALC])
        await llm.complete([Message("system", prompts.CRITIC_SYSTEM), Message("user", "judge")])
        with pytest.raises(ModelError):
            await llm.complete([Message("user", "2+2 again")])
        await llm.close()
    lines = [json.loads(line) for line in log.getvalue().splitlines()]
    assert [(x["role"], x["entry"], x["round"], x["tools"]) for x in lines] == [
        (None, "replies[0]", 1, ["calculator"]),
        ("critic", "roles.critic[0]", 1, []),
        (None, None, None, []),  # nothing was left: answered 500
    ]
    assert lines[0]["user"] == long[:199] + "…"
    assert [x["user"] for x in lines[1:]] == ["judge", "2+2 again"]
    assert all(datetime.fromisoformat(x["time"]).tzinfo is not None for x in lines)


def test_the_banner_says_what_is_served() -> None:
    url = "http://127.0.0.1:8089/v1"

    def said(script: object, log_to: str = "") -> str:
        return banner(url, "s.json", Script.parse(script), log_to)

    start = f"fake OpenAI-compatible server on {url} playing s.json: "
    assert said([{"text": "a"}, {"text": "b"}]) == start + "any request 2 replies"
    assert said([{"text": "a", "repeat": 3}]) == start + "any request 1 reply, 3 answers"
    assert said([{"text": "a"}, {"text": "b", "repeat": -1}]) == (
        start + "any request 2 replies, answering for ever"
    )
    assert said({"cycle": True, "replies": [{"text": "a"}]}, "log.jsonl") == (
        start + "any request 1 reply, cycling; requests logged to log.jsonl"
    )
    by_role = {
        "cycle": True,
        "roles": {
            "planner": [{"json": {}}],
            "critic": {"replies": [{"text": "x"}], "cycle": False},
        },
        "replies": [{"text": "a"}, {"text": "b"}],
    }
    assert said(by_role) == (
        start + "planner 1 reply, cycling; critic 1 reply; any other request 2 replies, cycling"
    )
    assert said({"roles": {"synthesizer": [{"text": "x"}]}}) == start + "synthesizer 1 reply"
