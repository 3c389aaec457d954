"""Function-calling mode through the real server, the real openai client and a scripted endpoint."""

from __future__ import annotations

import json
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

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


async def test_multi_tool_success(tmp_path: Path) -> None:
    replies = [
        {
            "reasoning": "I need the sum and the time.",
            "tool_calls": [
                {"name": "calculator", "arguments": {"expression": "19 * 3"}},
                {"name": "current_time", "arguments": {"timezone": "Asia/Tokyo"}},
            ],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20},
        },
        {"text": "19 times 3 is 57.", "usage": {"prompt_tokens": 150, "completion_tokens": 10}},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("What is 19*3, and what time is it in Tokyo?", mode=FC)
        assert_well_formed(events)
        started = of_kind(events, "tool_call_started")
        finished = of_kind(events, "tool_call_finished")
        assert sorted(s.tool_name for s in started) == ["calculator", "current_time"]
        by_tool = {f.tool_name: f for f in finished}
        assert to_python(by_tool["calculator"].result)["result"] == "57"
        assert by_tool["current_time"].text.endswith(
            "(Asia/Tokyo, " + to_python(by_tool["current_time"].result)["weekday"] + ")"
        )
        assert (
            "".join(d.text for d in of_kind(events, "reasoning_delta"))
            == "I need the sum and the time."
        )
        assert "".join(d.text for d in of_kind(events, "text_delta")) == "19 times 3 is 57."
        answer = final(events)
        assert answer.text == "19 times 3 is 57."
        assert answer.stop_reason == tasks_pb2.STOP_REASON_FINAL_ANSWER
        usage = of_kind(events, "usage")
        assert [u.task_total.total_tokens for u in usage] == [120, 280]
        task = await h.client.get_task(events[0].task_id)
        assert task.status == tasks_pb2.TASK_STATUS_COMPLETED
        assert task.final_answer == answer.text
        assert task.usage.total_tokens == 280
        assert task.last_sequence == events[-1].sequence
        # The second request carries the assistant's tool calls (content "") and both results.
        second = h.llm.requests[1]["messages"]
        assistant = next(m for m in second if m["role"] == "assistant")
        assert assistant["content"] == ""
        assert len(assistant["tool_calls"]) == 2
        assert [m["role"] for m in second].count("tool") == 2
        assert h.llm.requests[0]["tools"]
        assert h.llm.requests[0]["stream"] is True
        h.llm.assert_complete()


async def test_tool_failure_is_an_observation_the_model_recovers_from(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1/0"}}]},
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1/1"}}]},
        {"text": "It is 1."},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("divide one by zero, or by one if that fails", mode=FC)
        assert_well_formed(events)
        first, second = of_kind(events, "tool_call_finished")
        assert first.error.kind == tools_pb2.TOOL_ERROR_KIND_FAILED
        assert first.error.message == "division by zero"
        assert to_python(second.result)["result"] == "1"
        tool_message = next(m for m in h.llm.requests[1]["messages"] if m["role"] == "tool")
        assert tool_message["content"] == "division by zero"
        assert final(events).text == "It is 1."


async def test_malformed_tool_call_is_reported_not_run(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [{"name": "calculator", "arguments_raw": '{"expression": "2+'}]},
        {"tool_calls": [{"name": "no_such_tool", "arguments": {}}]},
        {"text": "Done."},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("compute", mode=FC)
        assert_well_formed(events)
        broken, unknown = of_kind(events, "tool_call_finished")
        assert "not valid JSON" in broken.error.message
        assert "not available" in unknown.error.message
        assert next(m for m in h.llm.requests[1]["messages"] if m["role"] == "tool")[
            "content"
        ].startswith("not called")


async def test_rate_limited_then_success(tmp_path: Path) -> None:
    replies = [
        {"error": {"status": 429, "message": "slow down"}},
        {"error": {"status": 503, "message": "busy"}},
        {"text": "fine"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("say fine", mode=FC)
        assert_well_formed(events)
        assert final(events).text == "fine"
        assert len(h.llm.requests) == 3


async def test_client_errors_are_not_retried_and_fail_the_task(tmp_path: Path) -> None:
    replies = [
        {"error": {"status": 400, "message": "model does not exist"}},
        {"text": "never sent"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("anything", mode=FC)
        assert_well_formed(events, tasks_pb2.TASK_STATUS_FAILED)
        [error] = of_kind(events, "error")
        assert error.reason == "LLM_UNAVAILABLE"
        assert error.fatal
        assert "model does not exist" in error.message
        assert len(h.llm.requests) == 1
        task = await h.client.get_task(events[0].task_id)
        assert task.error.reason == "LLM_UNAVAILABLE"
        assert task.stop_reason == tasks_pb2.STOP_REASON_ERROR


async def test_model_that_never_stops_hits_the_iteration_cap(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}]},
        {"text": "So far: 2 and 4; the rest was not computed."},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("keep adding forever", mode=FC, max_iterations=3)
        assert_well_formed(events)
        assert "tools" not in h.llm.requests[2]  # withdrawn on the last round
        assert "iteration limit" in h.llm.requests[2]["messages"][-1]["content"]
        answer = final(events)
        assert answer.stop_reason == tasks_pb2.STOP_REASON_MAX_ITERATIONS
        assert "withdrawn" in answer.stop_detail
        assert answer.text.startswith("So far")
        task = await h.client.get_task(events[0].task_id)
        assert task.stop_reason == tasks_pb2.STOP_REASON_MAX_ITERATIONS
        assert (task.progress.current_step, task.progress.total_steps) == (3, 3)


async def test_same_call_three_times_in_a_row_stops(tmp_path: Path) -> None:
    same = {"tool_calls": [{"name": "calculator", "arguments": {"expression": "7*7"}}]}
    replies = [same, same, same, {"match": "You write the final answer", "text": "49."}]
    async with harness(tmp_path, replies) as h:
        events = await h.run("what is 7*7", mode=FC)
        assert_well_formed(events)
        assert len(of_kind(events, "tool_call_finished")) == 2  # the third was not run
        answer = final(events)
        assert answer.stop_reason == tasks_pb2.STOP_REASON_REPEATED_TOOL_CALL
        assert "3 times in a row" in answer.stop_detail
        assert answer.text == "49."


async def test_token_budget_exhaustion(tmp_path: Path) -> None:
    usage = {"prompt_tokens": 1500, "completion_tokens": 100}
    call = {
        "tool_calls": [{"name": "calculator", "arguments": {"expression": "1+2"}}],
        "usage": usage,
    }
    other = {
        "tool_calls": [{"name": "calculator", "arguments": {"expression": "3+4"}}],
        "usage": usage,
    }
    async with harness(tmp_path, [call, other, {"text": "never"}]) as h:
        events = await h.run("add things", mode=FC, token_budget=4000)
        assert_well_formed(events)
        answer = final(events)
        assert answer.stop_reason == tasks_pb2.STOP_REASON_TOKEN_BUDGET
        # 800 tokens left: less than the next prompt (about 1,500), which is never sent.
        assert "token budget (800 tokens)" in answer.stop_detail
        assert "calculator" in answer.text  # partial results, written without another model call
        assert len(h.llm.requests) == 2
        assert (await h.client.get_task(events[0].task_id)).usage.total_tokens == 3200


async def test_an_endpoint_that_reports_no_usage_still_meets_the_token_budget(
    tmp_path: Path,
) -> None:
    call = {
        "tool_calls": [{"name": "calculator", "arguments": {"expression": "1+2"}}],
        "usage": None,
        "repeat": -1,
    }
    async with harness(tmp_path, [call]) as h:
        events = await h.run("add things", mode=FC, token_budget=3500, max_iterations=50)
        assert_well_formed(events)
        answer = final(events)
        assert answer.stop_reason == tasks_pb2.STOP_REASON_TOKEN_BUDGET
        usage = of_kind(events, "usage")
        assert usage
        assert all(u.estimated and u.call.total_tokens > 0 for u in usage)
        assert len(h.llm.requests) < 50  # stopped by the budget, not the iteration limit
        task = await h.client.get_task(events[0].task_id)
        assert 0 < task.usage.total_tokens <= 3500  # each call capped to what was left


async def test_step_timeout(tmp_path: Path) -> None:
    replies = [{"delay_seconds": 3, "text": "too late"}]
    async with harness(tmp_path, replies, step_timeout_seconds=0.5) as h:
        events = await h.run("be slow", mode=FC)
        end = stopped_without_result(events)  # nothing gathered: FAILED, no made-up answer
        assert end.stop_reason == tasks_pb2.STOP_REASON_STEP_TIMEOUT
        assert "0.5 s" in end.detail
        assert [f.success for f in of_kind(events, "step_finished")] == [False]


async def test_context_reaches_the_model(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "ok"}]) as h:
        await h.run("use the context", mode=FC, context={"customer": "ACME", "limit": 3})
        user = h.llm.requests[0]["messages"][1]["content"]
        assert json.loads(user.split("Context (JSON):\n", 1)[1]) == {"customer": "ACME", "limit": 3}


async def test_tool_allow_list_narrows_what_the_model_sees(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "ok"}]) as h:
        await h.run("calc only", mode=FC, tools=["calculator"])
        assert [t["function"]["name"] for t in h.llm.requests[0]["tools"]] == ["calculator"]
