"""Plan-and-execute and the Plan RPC through the real server, openai client and a script."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import grpc
import pytest

from agentd.v1 import events_pb2, tasks_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import (
    CRITIC,
    EXECUTOR,
    PLANNER,
    SYNTHESIZER,
    assert_well_formed,
    final,
    harness,
    kinds,
    of_kind,
    stopped_without_result,
)

PE = tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE


def plan(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"match": PLANNER, "json": {"steps": list(steps)}}


def verdict(
    score: float, decision: str = "accept", feedback: str = "", step_id: str = ""
) -> dict[str, Any]:
    return {
        "match": CRITIC,
        "json": {
            "accuracy": score,
            "completeness": score,
            "relevance": score,
            "logic": score,
            "decision": decision,
            "step_id": step_id,
            "feedback": feedback,
        },
    }


async def test_independent_steps_run_concurrently(tmp_path: Path) -> None:
    replies = [
        plan(
            {"id": "a", "description": "research alpha", "estimated_seconds": 2},
            {"id": "b", "description": "research beta", "estimated_seconds": 3},
            {"id": "c", "description": "compare alpha and beta", "depends_on": ["a", "b"]},
        ),
        {"match": "research alpha", "delay_seconds": 0.6, "text": "alpha is 1"},
        {"match": "research beta", "delay_seconds": 0.6, "text": "beta is 2"},
        {"match": "compare alpha and beta", "text": "beta is larger"},
        verdict(0.9),
        {
            "match": SYNTHESIZER,
            "reasoning": "combine",
            "text": "Beta (2) is larger than alpha (1).",
        },
    ]
    async with harness(tmp_path, replies) as h:
        started = time.monotonic()
        events = await h.run("Research alpha. Then research beta. Finally compare them.", mode=PE)
        elapsed = time.monotonic() - started
        assert_well_formed(events)
        order = [
            (e.WhichOneof("payload"), getattr(e, e.WhichOneof("payload") or "").step_id)
            for e in events
            if e.WhichOneof("payload") in ("step_started", "step_finished")
        ]
        assert order[:2] == [
            ("step_started", "a"),
            ("step_started", "b"),
        ]  # both before either finished
        assert order[-2:] == [("step_started", "c"), ("step_finished", "c")]
        assert elapsed < 1.1  # two 0.6 s steps overlapped
        [created] = of_kind(events, "plan_created")
        assert [s.id for s in created.plan.steps] == ["a", "b", "c"]
        assert created.plan.estimated_total_seconds == 5
        [review] = of_kind(events, "reflection")
        assert review.passed
        assert review.confidence == pytest.approx(0.9)
        assert final(events).text == "Beta (2) is larger than alpha (1)."
        task = await h.client.get_task(events[0].task_id)
        assert task.mode == PE
        assert [s.id for s in task.plan.steps] == ["a", "b", "c"]
        assert (task.progress.current_step, task.progress.total_steps) == (3, 3)
        h.llm.assert_complete()


async def test_tool_steps_use_plan_arguments_or_forced_tool_choice(tmp_path: Path) -> None:
    replies = [
        plan(
            {
                "id": "s1",
                "description": "compute",
                "tool": "calculator",
                "arguments": {"expression": "12*12"},
            },
            {
                "id": "s2",
                "description": "double the result",
                "tool": "calculator",
                "arguments": {},
                "depends_on": ["s1"],
            },
        ),
        {
            "match": "double the result",
            "tool_calls": [{"name": "calculator", "arguments": {"expression": "144*2"}}],
        },
        verdict(1.0),
        {"match": SYNTHESIZER, "text": "288"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("square 12 then double it", mode=PE)
        assert_well_formed(events)
        results = [f.text for f in of_kind(events, "tool_call_finished")]
        assert results == ["144", "288"]
        executor_request = next(
            r for r in h.llm.requests if EXECUTOR in r["messages"][0]["content"]
        )
        assert executor_request["tool_choice"] == {
            "type": "function",
            "function": {"name": "calculator"},
        }
        assert "144" in executor_request["messages"][1]["content"]  # the earlier result
        # planner asked for structured output
        assert h.llm.requests[0]["response_format"]["type"] == "json_schema"


async def test_failed_step_triggers_a_replan(tmp_path: Path) -> None:
    replies = [
        plan(
            {
                "id": "s1",
                "description": "divide",
                "tool": "calculator",
                "arguments": {"expression": "1/0"},
            }
        ),
        plan(
            {
                "id": "s2",
                "description": "divide safely",
                "tool": "calculator",
                "arguments": {"expression": "1/2"},
            }
        ),
        verdict(0.95),
        {"match": SYNTHESIZER, "text": "0.5"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("divide one by something", mode=PE)
        assert_well_formed(events)
        [revised] = of_kind(events, "plan_revised")
        assert "step s1 failed: division by zero" in revised.reason
        assert revised.plan.revision == 2
        replan_request = h.llm.requests[1]["messages"][-1]["content"]
        assert "division by zero" in replan_request
        assert final(events).text == "0.5"


async def test_critic_triggered_replan_and_correction(tmp_path: Path) -> None:
    replies = [
        plan({"id": "s1", "description": "write a haiku"}),
        {"match": "write a haiku", "text": "a bad poem"},
        verdict(0.3, "revise", "count the syllables", "s1"),
        {"match": "count the syllables", "text": "an old silent pond"},
        verdict(0.4, "replan", "a haiku needs research first"),
        plan(
            {"id": "s2", "description": "research haiku form"},
            {"id": "s3", "description": "write the final haiku", "depends_on": ["s2"]},
        ),
        {"match": "research haiku form", "text": "5-7-5"},
        {"match": "write the final haiku", "text": "a proper haiku"},
        verdict(0.9),
        {"match": SYNTHESIZER, "text": "a proper haiku"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("write a haiku", mode=PE)
        assert_well_formed(events)
        decisions = [v.decision for v in of_kind(events, "reflection")]
        assert decisions == [
            events_pb2.REFLECTION_DECISION_REVISE,
            events_pb2.REFLECTION_DECISION_REPLAN,
            events_pb2.REFLECTION_DECISION_ACCEPT,
        ]
        first = of_kind(events, "reflection")[0]
        assert first.confidence == pytest.approx(0.3)
        assert not first.passed
        assert len(of_kind(events, "plan_revised")) == 1
        assert final(events).text == "a proper haiku"
        h.llm.assert_complete()


async def test_replans_count_against_max_iterations(tmp_path: Path) -> None:
    failing = {
        "id": "s1",
        "description": "divide",
        "tool": "calculator",
        "arguments": {"expression": "1/0"},
    }
    replies = [
        plan(failing),
        plan({**failing, "id": "s2"}),
        {"match": SYNTHESIZER, "text": "could not divide"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("divide by zero", mode=PE, max_iterations=2)
        assert_well_formed(events)
        answer = final(events)
        assert answer.stop_reason == tasks_pb2.STOP_REASON_MAX_ITERATIONS
        assert "iteration limit (2)" in answer.stop_detail


async def test_token_budget_and_step_timeout(tmp_path: Path) -> None:
    expensive = {
        **plan({"id": "s1", "description": "think"}),
        "usage": {"prompt_tokens": 2900, "completion_tokens": 200},
    }
    async with harness(tmp_path, [expensive, {"text": "never"}]) as h:
        events = await h.run("think hard", mode=PE, token_budget=3000)
        answer = final(events)
        assert answer.stop_reason == tasks_pb2.STOP_REASON_TOKEN_BUDGET
    replies = [
        plan({"id": "s1", "description": "slow thing"}),
        {"match": "slow thing", "delay_seconds": 2, "text": "late"},
        plan({"id": "s2", "description": "quick thing"}),
        {"match": "quick thing", "text": "quick result"},
        verdict(0.9),
        {"match": SYNTHESIZER, "text": "quick result"},
    ]
    async with harness(tmp_path, replies, step_timeout_seconds=0.5) as h:
        events = await h.run("do it", mode=PE)
        assert_well_formed(events)
        [revised] = of_kind(events, "plan_revised")
        assert "timed out after 0.5 s" in revised.reason
        assert final(events).text == "quick result"


async def test_malformed_tool_call_in_a_step(tmp_path: Path) -> None:
    replies = [
        plan(
            {
                "id": "s1",
                "description": "compute later",
                "tool": "calculator",
                "arguments": {"wrong": 1},
            }
        ),
        {
            "match": "compute later",
            "tool_calls": [{"name": "calculator", "arguments_raw": "{oops"}],
        },
        plan(
            {
                "id": "s2",
                "description": "compute now",
                "tool": "calculator",
                "arguments": {"expression": "3"},
            }
        ),
        verdict(0.9),
        {"match": SYNTHESIZER, "text": "3"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("compute", mode=PE)
        assert_well_formed(events)
        broken = of_kind(events, "tool_call_finished")[0]
        assert "not valid JSON" in broken.error.message
        assert final(events).text == "3"


async def test_invalid_plan_is_repaired_once_then_fails(tmp_path: Path) -> None:
    replies = [
        {"match": PLANNER, "text": "here is my plan: do it"},
        plan({"id": "s1", "description": "x", "tool": "no_such_tool"}),
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("something", mode=PE)
        assert_well_formed(events, tasks_pb2.TASK_STATUS_FAILED)
        [error] = of_kind(events, "error")
        assert error.reason == "PLAN_INVALID"
        assert "no_such_tool" in error.message
        assert "not valid" in h.llm.requests[1]["messages"][-1]["content"]


async def test_plan_rpc_returns_a_validated_ordered_plan(tmp_path: Path) -> None:
    replies = [
        plan(
            {"id": "s2", "description": "use", "depends_on": ["s1"], "estimated_seconds": 4},
            {
                "id": "s1",
                "description": "fetch",
                "tool": "calculator",
                "arguments": {"expression": "1"},
                "estimated_seconds": 1.5,
            },
        )
    ]
    async with harness(tmp_path, replies) as h:
        result = await h.client.plan("fetch then use", tools=["calculator"], context={"k": 1})
        assert [s.id for s in result.steps] == ["s1", "s2"]  # dependency order
        assert result.estimated_total_seconds == 5.5
        assert result.steps[0].tool == "calculator"
        assert list(result.steps[1].depends_on) == ["s1"]
        assert "calculator" in h.llm.requests[0]["messages"][0]["content"]
        assert "write_file" not in h.llm.requests[0]["messages"][0]["content"]


@pytest.mark.parametrize(
    "bad",
    [
        {"steps": []},
        {"steps": [{"id": "a", "description": "x", "depends_on": ["a"]}]},
        {
            "steps": [
                {"id": "a", "description": "x", "depends_on": ["b"]},
                {"id": "b", "description": "y", "depends_on": ["a"]},
            ]
        },
        {"steps": [{"id": "a", "description": "x"}, {"id": "a", "description": "y"}]},
        {"nothing": True},
    ],
)
async def test_plan_rpc_fails_cleanly_on_garbage(tmp_path: Path, bad: dict[str, Any]) -> None:
    replies = [{"match": PLANNER, "json": bad}, {"match": PLANNER, "text": "```not json```"}]
    async with harness(tmp_path, replies) as h:
        with pytest.raises(client_errors.PlanInvalidError) as info:
            await h.client.plan("plan something")
        assert info.value.code is grpc.StatusCode.ABORTED
        assert info.value.reason == "PLAN_INVALID"
        assert len(h.llm.requests) == 2


async def test_plan_too_large(tmp_path: Path) -> None:
    big = {"steps": [{"id": f"s{i}", "description": "x"} for i in range(51)]}
    async with harness(tmp_path, [{"json": big}, {"json": big}]) as h:
        events = await h.run("huge", mode=PE)
        end = stopped_without_result(events)  # no plan ran: FAILED, no made-up answer
        assert end.stop_reason == tasks_pb2.STOP_REASON_PLAN_TOO_LARGE
        assert "51 steps" in end.detail


async def test_auto_mode_routes_multi_part_tasks_to_plan_and_execute(tmp_path: Path) -> None:
    replies = [
        plan({"id": "s1", "description": "only step"}),
        {"match": "only step", "text": "done"},
        verdict(0.9),
        {"match": SYNTHESIZER, "text": "all done"},
        {"match": "what is 2+2", "text": "4"},
    ]
    async with harness(tmp_path, replies) as h:
        multi = await h.run("1. fetch the data\n2. clean it\n3. chart it")
        assert (await h.client.get_task(multi[0].task_id)).mode == PE
        single = await h.run("what is 2+2")
        assert (
            await h.client.get_task(single[0].task_id)
        ).mode == tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


async def test_every_event_kind_appears_with_increasing_sequences(tmp_path: Path) -> None:
    replies = [
        {
            **plan(
                {
                    "id": "s1",
                    "description": "divide",
                    "tool": "calculator",
                    "arguments": {"expression": "1/0"},
                }
            ),
            "reasoning": "plan it",
        },
        plan({"id": "s2", "description": "explain", "tool": None}),
        {"match": "explain", "reasoning": "thinking", "text": "cannot divide by zero"},
        verdict(0.9),
        {"match": SYNTHESIZER, "text": "Division by zero is undefined."},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("divide 1 by 0 and explain", mode=PE)
        assert_well_formed(events)
        seen = set(kinds(events))
        expected = {
            "status_changed", "plan_created", "plan_revised", "step_started", "step_finished",
            "text_delta", "reasoning_delta", "tool_call_started", "tool_call_finished",
            "reflection", "usage", "final_answer",
        }  # fmt: skip
        assert expected <= seen, expected - seen
        task = await h.client.get_task(events[0].task_id)
        assert task.final_answer == final(events).text
        assert task.last_sequence == events[-1].sequence
        assert task.status == events[-1].status_changed.current
    async with harness(tmp_path, [{"error": {"status": 401, "message": "bad key"}}]) as h:
        failed = await h.run("x", mode=PE)
        assert "error" in kinds(failed)


@pytest.mark.parametrize(
    ("policy", "reviews"), [("every_step", 3), ("every_n", 1), ("end", 1), ("off", 0)]
)
async def test_critic_policies(tmp_path: Path, policy: str, reviews: int) -> None:
    replies = [
        plan(
            {"id": "a", "description": "first part"},
            {"id": "b", "description": "second part", "depends_on": ["a"]},
            {"id": "c", "description": "third part", "depends_on": ["b"]},
        ),
        {**verdict(0.9), "repeat": -1},  # before "part": critic requests quote the parts too
        {"match": SYNTHESIZER, "text": "all parts done"},
        {"match": "part", "text": "part done", "repeat": 3},
    ]
    async with harness(tmp_path, replies, critic_policy=policy, critic_every_n=3) as h:
        events = await h.run("do three parts", mode=PE)
        assert_well_formed(events)
        assert len(of_kind(events, "reflection")) == reviews
