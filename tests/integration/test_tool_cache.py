"""Cached tool results through the real server: CallTool and a task's tool calls."""

from __future__ import annotations

from pathlib import Path

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import tasks_pb2
from agentd_client.client import to_python, to_struct
from core.metrics import REGISTRY
from tests.integration.harness import assert_well_formed, harness, of_kind

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
ARGS = {"data": {"people": [{"name": "ada", "age": 36}, {"name": "bob", "age": 25}]},
        "expression": "people[?age > `30`].name"}  # fmt: skip


def _hits() -> float:
    labels = {"tool": "json_query", "result": "hit"}
    return REGISTRY.get_sample_value("agentd_tool_cache_total", labels) or 0.0


async def test_a_second_call_and_a_tasks_call_are_answered_from_the_cache(
    tmp_path: Path,
) -> None:
    query = {"tool_calls": [{"name": "json_query", "arguments": ARGS}]}
    replies = [query, {"text": "ada"}, query, {"text": "ada again"}]
    async with harness(tmp_path, replies, tool_cache_seconds="json_query=60") as h:
        hits = _hits()
        first = await h.client.call_tool("json_query", ARGS)
        second = await h.client.call_tool("json_query", ARGS)
        assert (first.cached, second.cached) == (False, True)
        assert to_python(second.result) == to_python(first.result) == {"result": ["ada"]}
        bypassed = await h.running.stub.CallTool(
            pb.CallToolRequest(tool_name="json_query", arguments=to_struct(ARGS), bypass_cache=True)
        )
        assert not bypassed.cached

        events = await h.run("who is over 30?", mode=FC)
        assert_well_formed(events)
        [finished] = of_kind(events, "tool_call_finished")
        assert finished.cached
        assert to_python(finished.result) == {"result": ["ada"]}

        request = pb.ExecuteRequest(task="who is over 30, fresh?", mode=FC, bypass_tool_cache=True)
        fresh = [event async for event in h.running.stub.Execute(request)]
        [finished] = of_kind(fresh, "tool_call_finished")
        assert not finished.cached
        assert _hits() - hits == 2  # the second CallTool and the first task's call
        h.llm.assert_complete()

        records = await h.server.durable.tool_calls.query("default")
        assert [r.cached for r in records if r.tool_name == "json_query"] == [
            False, True, False, True, False
        ]  # fmt: skip
