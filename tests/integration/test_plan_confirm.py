"""Plan, confirm, run: a plan from the Plan RPC, edited by a person, run as given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import (
    PLANNER,
    SYNTHESIZER,
    assert_well_formed,
    final,
    harness,
    of_kind,
)

PE = tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING

PLANNED = {
    "steps": [
        {"id": "sum", "description": "add the numbers", "tool": "calculator",
         "arguments": {"expression": "2+3"}},
        {"id": "greet", "description": "write a greeting"},
        {"id": "report", "description": "report the sum", "depends_on": ["sum"]},
    ]
}  # fmt: skip


async def test_an_edited_plan_runs_as_given_without_planning_again(tmp_path: Path) -> None:
    replies = [
        {"match": PLANNER, "json": PLANNED},
        {"match": "report the sum, doubled", "text": "the sum doubled is 10"},
        {"match": SYNTHESIZER, "text": "2+3=5; doubled, 10."},
    ]
    async with harness(tmp_path, replies, critic_policy="off") as h:
        proposed = await h.client.plan("add 2 and 3, then report", tools=["calculator"])
        assert [s.id for s in proposed.steps] == ["sum", "greet", "report"]
        planned_requests = len(h.llm.requests)
        # A person drops the greeting and rewords the report step.
        edited = tasks_pb2.Plan()
        edited.CopyFrom(proposed)
        del edited.steps[1]
        edited.steps[1].description = "report the sum, doubled"

        events = await h.run("add 2 and 3, then report", tools=["calculator"], plan=edited)

        assert_well_formed(events)
        created = of_kind(events, "plan_created")
        assert len(created) == 1
        assert [s.id for s in created[0].plan.steps] == ["sum", "report"]
        assert created[0].plan.steps[1].description == "report the sum, doubled"
        assert of_kind(events, "plan_revised") == []
        assert [c.tool_name for c in of_kind(events, "tool_call_started")] == ["calculator"]
        assert final(events).text == "2+3=5; doubled, 10."
        asked = [r["messages"][0]["content"] for r in h.llm.requests[planned_requests:]]
        assert not any(PLANNER in system for system in asked)  # no planning this time
        task = await h.client.get_task(events[0].task_id)
        assert task.mode == PE
        assert [s.id for s in task.plan.steps] == ["sum", "report"]


def _plan(*steps: dict[str, Any]) -> tasks_pb2.Plan:
    plan = tasks_pb2.Plan()
    for step in steps:
        added = plan.steps.add(
            id=step["id"],
            description=step.get("description", ""),
            tool=step.get("tool", ""),
            depends_on=step.get("depends_on", []),
            expected_output=step.get("expected_output", ""),
            estimated_seconds=step.get("estimated_seconds", 0.0),
        )
        added.arguments.update(step.get("arguments", {}))
    return plan


CASES: dict[str, tuple[tasks_pb2.Plan, dict[str, Any], tuple[str, str]]] = {
    "unknown tool": (
        _plan({"id": "a", "description": "x", "tool": "rm_rf"}),
        {},
        ("plan", "unknown or unavailable tool 'rm_rf'"),
    ),
    "a tool the task may not use": (
        _plan({"id": "a", "description": "x", "tool": "write_file"}),
        {"tools": ["calculator"]},
        ("plan", "unknown or unavailable tool 'write_file'"),
    ),
    "a cycle": (
        _plan(
            {"id": "a", "description": "x", "depends_on": ["b"]},
            {"id": "b", "description": "y", "depends_on": ["a"]},
        ),
        {},
        ("plan", "cycle"),
    ),
    "an unknown dependency": (
        _plan({"id": "a", "description": "x", "depends_on": ["zz"]}),
        {},
        ("plan", "unknown step 'zz'"),
    ),
    "no steps": (tasks_pb2.Plan(), {}, ("plan", "no steps")),
    "too many steps": (
        _plan(*({"id": f"s{i}", "description": "x"} for i in range(51))),
        {},
        ("plan", "at most 50"),
    ),
    "a step id of 65 characters": (
        _plan({"id": "i" * 65, "description": "x"}),
        {},
        ("plan.steps[0].id", "over 64"),
    ),
    "a description of 5,001 characters": (
        _plan({"id": "a", "description": "d" * 5001}),
        {},
        ("plan.steps[0].description", "over 5000"),
    ),
    "an infinite estimate": (
        _plan({"id": "a", "description": "x", "estimated_seconds": float("inf")}),
        {},
        ("plan.steps[0].estimated_seconds", "finite"),
    ),
    "another mode": (
        _plan({"id": "a", "description": "x"}),
        {"mode": FC},
        ("mode", "plan-and-execute"),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_bad_plan_is_refused_before_anything_runs(tmp_path: Path, case: str) -> None:
    plan, options, (field, words) = CASES[case]
    async with harness(tmp_path, []) as h:
        with pytest.raises(client_errors.InvalidArgumentError) as refused:
            await h.client.start_task("do it", plan=plan, **options)
        assert refused.value.code is grpc.StatusCode.INVALID_ARGUMENT
        violations = {v.field: v.description for v in refused.value.field_violations}
        assert field in violations, violations
        assert words in violations[field]
        assert h.llm.requests == []  # refused before any model call
        listed = await h.client.list_tasks()
        assert list(listed.tasks) == []  # and nothing stored
