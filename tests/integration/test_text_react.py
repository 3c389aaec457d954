"""Text ReAct through the real server, the real openai client and a scripted endpoint."""

from __future__ import annotations

from pathlib import Path

from agentd.v1 import tasks_pb2, tools_pb2
from agentd_client.client import to_python
from tests.integration.harness import (
    assert_well_formed,
    final,
    harness,
    of_kind,
    stopped_without_result,
)

REACT = tasks_pb2.EXECUTION_MODE_TEXT_REACT


def act(tool: str, given: str, thought: str = "I should use a tool.") -> dict[str, str]:
    return {"text": f"Thought: {thought}\nAction: {tool}\nAction Input: {given}"}


async def test_multi_tool_success_with_stop_sequence(tmp_path: Path) -> None:
    replies = [
        act("calculator", '{"expression": "6*7"}'),
        act("current_time", '{"timezone": "Europe/Paris"}'),
        {"text": "Thought: I know it now.\nFinal Answer: 42, and it is day in Paris."},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("compute 6*7 and tell the time in Paris", mode=REACT)
        assert_well_formed(events)
        finished = of_kind(events, "tool_call_finished")
        assert [f.tool_name for f in finished] == ["calculator", "current_time"]
        assert to_python(finished[0].result)["result"] == "42"
        assert final(events).text == "42, and it is day in Paris."
        first = h.llm.requests[0]
        assert first["stop"] == ["Observation:"]
        assert "tools" not in first
        assert "Action Input" in first["messages"][0]["content"]
        assert h.llm.requests[1]["messages"][-1]["content"].startswith("Observation: 42")


async def test_forgiving_parser(tmp_path: Path) -> None:
    replies = [
        act("`calculator`", '```json\n{"expression": "2+3"}\n```\nI will wait now.'),
        act("calculator", "10 / 4"),
        act("json_query", '{"data": {"a": [1, 2]}, "expression": "a[1]"} trailing words'),
        {"text": "Final Answer: 5, 2.5 and 2"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("three computations", mode=REACT)
        assert_well_formed(events)
        results = [to_python(f.result) for f in of_kind(events, "tool_call_finished")]
        assert results[0]["result"] == "5"
        assert results[1]["result"] == "2.5"
        assert results[2] == {"result": 2}


async def test_tool_failure_recovered(tmp_path: Path) -> None:
    replies = [
        act("read_file", '{"path": "missing.txt"}'),
        act("write_file", '{"path": "missing.txt", "content": "now here"}'),
        act("read_file", '{"path": "missing.txt"}'),
        {"text": "Final Answer: now here"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("read the file, creating it if needed", mode=REACT)
        assert_well_formed(events)
        first, _, last = of_kind(events, "tool_call_finished")
        assert first.error.kind == tools_pb2.TOOL_ERROR_KIND_FAILED
        assert "does not exist" in first.error.message
        assert to_python(last.result)["content"] == "now here"
        assert (
            "Observation: 'missing.txt': does not exist"
            in h.llm.requests[1]["messages"][-1]["content"]
        )


async def test_malformed_action_input_and_one_corrective_prompt(tmp_path: Path) -> None:
    replies = [
        act("json_query", "not json at all"),
        {"text": "I am not sure what to do."},
        {"text": "Final Answer: gave up on the query"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("query something", mode=REACT)
        assert_well_formed(events)
        [broken] = of_kind(events, "tool_call_finished")
        assert "not a JSON object" in broken.error.message
        assert "did not follow the format" in h.llm.requests[2]["messages"][-1]["content"]
        assert final(events).text == "gave up on the query"


async def test_unparseable_twice_fails_the_task(tmp_path: Path) -> None:
    replies = [{"text": "blah"}, {"text": "still blah"}]
    async with harness(tmp_path, replies) as h:
        events = await h.run("anything", mode=REACT)
        assert_well_formed(events, tasks_pb2.TASK_STATUS_FAILED)
        [error] = of_kind(events, "error")
        assert error.reason == "MODEL_OUTPUT_INVALID"
        task = await h.client.get_task(events[0].task_id)
        assert task.error.reason == "MODEL_OUTPUT_INVALID"


async def test_rate_limit_then_success(tmp_path: Path) -> None:
    replies = [{"error": {"status": 429, "message": "later"}}, {"text": "Final Answer: ok"}]
    async with harness(tmp_path, replies) as h:
        events = await h.run("say ok", mode=REACT)
        assert final(events).text == "ok"


async def test_never_stops_hits_the_iteration_cap(tmp_path: Path) -> None:
    replies = [
        act("calculator", '{"expression": "1+1"}'),
        act("calculator", '{"expression": "2+2"}'),
        act("calculator", '{"expression": "3+3"}'),
        act("calculator", '{"expression": "4+4"}'),
        {"match": "You write the final answer", "text": "2 and 4 so far."},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("add forever", mode=REACT, max_iterations=3)
        assert_well_formed(events)
        answer = final(events)
        assert answer.stop_reason == tasks_pb2.STOP_REASON_MAX_ITERATIONS
        assert answer.text == "2 and 4 so far."
        assert "No more actions" in h.llm.requests[2]["messages"][-1]["content"]


async def test_token_budget_and_step_timeout(tmp_path: Path) -> None:
    expensive = {
        **act("calculator", '{"expression": "1"}'),
        "usage": {"prompt_tokens": 2900, "completion_tokens": 200},
    }
    async with harness(tmp_path, [expensive, {"text": "never"}]) as h:
        events = await h.run("spend", mode=REACT, token_budget=3000)
        assert final(events).stop_reason == tasks_pb2.STOP_REASON_TOKEN_BUDGET
    async with harness(
        tmp_path, [{"delay_seconds": 3, "text": "Final Answer: late"}], step_timeout_seconds=0.4
    ) as h:
        events = await h.run("be slow", mode=REACT)
        end = stopped_without_result(events)
        assert end.stop_reason == tasks_pb2.STOP_REASON_STEP_TIMEOUT
