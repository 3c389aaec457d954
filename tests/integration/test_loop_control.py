"""Loop control through the real server and the fake model: a streak of failed tool calls
stops a run (TOOL_FAILURES) with the best answer so far, and a failed plan step follows
the agent's step policy (replan, skip, terminate)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import agents_pb2, tasks_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import SYNTHESIZER, assert_well_formed, final, harness, of_kind
from tests.integration.test_plan_execute import plan, verdict

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
REACT = tasks_pb2.EXECUTION_MODE_TEXT_REACT
PE = tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE


def _divide(*numbers: int) -> dict[str, Any]:
    """A reply calling the calculator to divide each number by zero (each call fails)."""
    calls = [{"name": "calculator", "arguments": {"expression": f"{n}/0"}} for n in numbers]
    return {"tool_calls": calls}


def _agents(folder: Path, **files: str) -> Path:
    agents = folder / "agents"
    agents.mkdir()
    for name, text in files.items():
        (agents / f"{name}.yaml").write_text(text)
    return agents


async def test_three_failed_calls_in_a_row_stop_the_run_with_the_best_answer(
    tmp_path: Path,
) -> None:
    replies = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}]},
        _divide(1),
        _divide(2),
        _divide(3),
        {"match": SYNTHESIZER, "text": "2+2 is 4; the divisions all failed."},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("add, then divide by zero until it works", mode=FC)
        assert_well_formed(events)
        finished = of_kind(events, "tool_call_finished")
        assert [f.HasField("error") for f in finished] == [False, True, True, True]
        answer = final(events)
        assert answer.stop_reason == tasks_pb2.STOP_REASON_TOOL_FAILURES
        assert answer.partial
        assert answer.text == "2+2 is 4; the divisions all failed."
        assert "3 tool calls in a row failed" in answer.stop_detail
        assert "division by zero" in answer.stop_detail
        # The synthesizer saw what was gathered, the failures included.
        synthesis = h.llm.requests[-1]["messages"][-1]["content"]
        assert "2+2" in synthesis
        assert "3/0" in synthesis
        task = await h.client.get_task(events[0].task_id)
        assert task.stop_reason == tasks_pb2.STOP_REASON_TOOL_FAILURES
        assert task.status == tasks_pb2.TASK_STATUS_COMPLETED
        h.llm.assert_complete()


async def test_a_success_breaks_the_streak(tmp_path: Path) -> None:
    replies = [
        _divide(1),
        _divide(2),
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
        _divide(3),
        _divide(4),
        {"text": "1+1 is 2."},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("try", mode=FC)
        assert_well_formed(events)
        answer = final(events)
        assert answer.stop_reason == tasks_pb2.STOP_REASON_FINAL_ANSWER
        assert answer.text == "1+1 is 2."
        h.llm.assert_complete()


async def test_refused_and_invalid_calls_count_and_a_batch_finishes_first(
    tmp_path: Path,
) -> None:
    """A tool the task may not use, arguments that do not parse and a tool error, asked
    for in one reply: all three run (or are refused), then the run stops."""
    replies = [
        {
            "tool_calls": [
                {"name": "no_such_tool", "arguments": {}},
                {"name": "calculator", "arguments_raw": '{"expression": "2+'},
                {"name": "calculator", "arguments": {"expression": "1/0"}},
            ]
        },
        {"match": SYNTHESIZER, "text": "Nothing worked."},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("try everything", mode=FC)
        assert_well_formed(events)
        assert len(of_kind(events, "tool_call_finished")) == 3
        assert final(events).stop_reason == tasks_pb2.STOP_REASON_TOOL_FAILURES
        [last_step] = [s for s in of_kind(events, "step_finished") if s.step_id == "iteration-1"]
        assert not last_step.success
        h.llm.assert_complete()


async def test_text_react_stops_too(tmp_path: Path) -> None:
    replies = [
        {"text": f'Thought: try\nAction: calculator\nAction Input: {{"expression": "{n}/0"}}'}
        for n in (1, 2, 3)
    ] + [{"match": SYNTHESIZER, "text": "Division by zero fails."}]
    async with harness(tmp_path, replies) as h:
        events = await h.run("divide by zero", mode=REACT)
        assert_well_formed(events)
        assert final(events).stop_reason == tasks_pb2.STOP_REASON_TOOL_FAILURES
        h.llm.assert_complete()


async def test_the_agent_and_the_server_set_the_limit(tmp_path: Path) -> None:
    strict = "id: strict\nmax_failed_tool_calls: 1\n"
    patient = "id: patient\nmax_failed_tool_calls: 0\n"
    folder = _agents(tmp_path, strict=strict, patient=patient)
    replies = [
        _divide(1),
        {"match": SYNTHESIZER, "text": "It failed once; that was enough."},
        *(_divide(n) for n in range(2, 7)),
        {"text": "Five failures later: no luck."},
    ]
    async with harness(tmp_path, replies, agents_dir=folder, max_failed_tool_calls=2) as h:
        strict_run = await h.run("divide", mode=FC, agent="strict")
        assert final(strict_run).stop_reason == tasks_pb2.STOP_REASON_TOOL_FAILURES
        assert "1 tool calls in a row failed (the limit is 1)" in final(strict_run).stop_detail
        patient_run = await h.run("divide", mode=FC, agent="patient")
        assert final(patient_run).stop_reason == tasks_pb2.STOP_REASON_FINAL_ANSWER
        assert len(of_kind(patient_run, "tool_call_finished")) == 5
        h.llm.assert_complete()


async def test_the_server_setting_applies_to_agents_that_say_nothing(tmp_path: Path) -> None:
    replies = [_divide(1), _divide(2), {"match": SYNTHESIZER, "text": "Two failures."}]
    async with harness(tmp_path, replies, max_failed_tool_calls=2) as h:
        events = await h.run("divide", mode=FC)
        assert final(events).stop_reason == tasks_pb2.STOP_REASON_TOOL_FAILURES
        h.llm.assert_complete()


async def test_agent_keys_round_trip_and_bad_values_are_refused(tmp_path: Path) -> None:
    async with harness(tmp_path, [], anonymous_roles=["admin"]) as h:
        agent = agents_pb2.Agent(id="careful", max_failed_tool_calls=0, step_policy="skip")
        created = await h.client.create_agent(agent)
        assert created.HasField("max_failed_tool_calls")
        assert (created.max_failed_tool_calls, created.step_policy) == (0, "skip")
        plain = await h.client.create_agent(agents_pb2.Agent(id="plain"))
        assert not plain.HasField("max_failed_tool_calls")
        assert plain.step_policy == ""
        for bad, field in (
            (agents_pb2.Agent(id="bad", step_policy="retry"), "agent.step_policy"),
            (agents_pb2.Agent(id="bad", max_failed_tool_calls=101), "agent.max_failed_tool_calls"),
        ):
            with pytest.raises(client_errors.InvalidArgumentError) as refused:
                await h.client.create_agent(bad)
            assert [v.field for v in refused.value.field_violations] == [field]


# -- step policies (plan-and-execute) -------------------------------------------------


def _failing_plan() -> dict[str, Any]:
    """s1 fails (division by zero), s2 depends on it, s3 is independent."""
    return plan(
        {
            "id": "s1",
            "description": "divide",
            "tool": "calculator",
            "arguments": {"expression": "1/0"},
        },
        {"id": "s2", "description": "explain the quotient", "depends_on": ["s1"]},
        {
            "id": "s3",
            "description": "multiply",
            "tool": "calculator",
            "arguments": {"expression": "6*7"},
            "depends_on": [],
        },
    )


async def _run_with_policy(tmp_path: Path, policy: str, replies: list[Any]) -> tuple[Any, Any]:
    folder = _agents(tmp_path, planned=f"id: planned\nstep_policy: {policy}\n")
    async with harness(tmp_path, replies, agents_dir=folder) as h:
        events = await h.run("divide, explain, multiply", mode=PE, agent="planned")
        h.llm.assert_complete()
        return events, h.llm.requests


async def test_step_policy_replan_asks_for_a_new_plan(tmp_path: Path) -> None:
    replies = [
        _failing_plan(),
        plan(
            {
                "id": "s4",
                "description": "divide differently",
                "tool": "calculator",
                "arguments": {"expression": "1/1"},
            }
        ),
        verdict(0.9),
        {"match": SYNTHESIZER, "text": "42, and 1/1 is 1."},
    ]
    events, _ = await _run_with_policy(tmp_path, "replan", replies)
    assert_well_formed(events)
    [revised] = of_kind(events, "plan_revised")
    assert "step s1 failed" in revised.reason
    assert final(events).stop_reason == tasks_pb2.STOP_REASON_FINAL_ANSWER


async def test_step_policy_skip_goes_on_without_the_step_and_its_dependents(
    tmp_path: Path,
) -> None:
    replies = [
        _failing_plan(),
        verdict(0.9),
        {"match": SYNTHESIZER, "text": "6*7 is 42; the division failed."},
    ]
    events, requests = await _run_with_policy(tmp_path, "skip", replies)
    assert_well_formed(events)
    assert "plan_revised" not in [e.WhichOneof("payload") for e in events]
    steps = {s.step_id: s for s in of_kind(events, "step_finished")}
    assert not steps["s1"].success
    assert not steps["s2"].success
    assert "depends on s1" in steps["s2"].output
    assert steps["s3"].success
    answer = final(events)
    assert answer.stop_reason == tasks_pb2.STOP_REASON_FINAL_ANSWER
    assert answer.text == "6*7 is 42; the division failed."
    # s2 was never worked on: no executor call for it.
    assert not any("explain the quotient" in str(r["messages"][-1]) for r in requests[:-1])


async def test_step_policy_terminate_ends_the_run_with_the_best_answer(tmp_path: Path) -> None:
    replies = [
        _failing_plan(),
        {"match": SYNTHESIZER, "text": "The division failed; 6*7 is 42."},
    ]
    events, _ = await _run_with_policy(tmp_path, "terminate", replies)
    assert_well_formed(events)
    assert "plan_revised" not in [e.WhichOneof("payload") for e in events]
    answer = final(events)
    assert answer.stop_reason == tasks_pb2.STOP_REASON_STEP_FAILED
    assert answer.partial
    assert "step s1 failed" in answer.stop_detail
    assert "terminate" in answer.stop_detail
