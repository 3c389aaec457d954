"""Execute's entry checks, deadlines and rate-limit recovery in plan-and-execute."""

from __future__ import annotations

from pathlib import Path

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
    kinds,
)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"task": ""}, "task"),
        ({"task": "   "}, "task"),
        ({"task": "x" * 5001}, "task"),
        ({"context": {"blob": "y" * 11_000}}, "context"),
        ({"max_iterations": 51}, "max_iterations"),
        ({"max_iterations": -1}, "max_iterations"),
        ({"tools": ["calculator", "rm_rf"]}, "tools[1]"),
    ],
)
async def test_bad_requests_are_refused_with_field_violations(
    tmp_path: Path, options: dict[str, object], field: str
) -> None:
    async with harness(tmp_path, []) as h:
        task = str(options.pop("task", "do something"))
        with pytest.raises(client_errors.InvalidArgumentError) as info:
            async for _ in h.client.execute(task, **options):  # type: ignore[arg-type]
                pass
        assert info.value.code is grpc.StatusCode.INVALID_ARGUMENT
        assert [v.field for v in info.value.field_violations] == [field]
        assert h.llm.requests == []  # nothing reached the model


async def test_every_violation_is_reported_at_once(tmp_path: Path) -> None:
    async with harness(tmp_path, []) as h:
        with pytest.raises(client_errors.InvalidArgumentError) as info:
            async for _ in h.client.execute("", max_iterations=99, tools=["nope"]):
                pass
        assert {v.field for v in info.value.field_violations} == {
            "task",
            "max_iterations",
            "tools[0]",
        }


async def test_task_deadline_stops_the_task(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}]},
        {"delay_seconds": 5, "text": "late"},
    ]
    async with harness(tmp_path, replies, task_timeout_seconds=0.8) as h:
        events = await h.run("slow task", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING)
        assert_well_formed(events)
        answer = final(events)
        assert answer.stop_reason == tasks_pb2.STOP_REASON_DEADLINE
        assert "0.8 s" in answer.stop_detail
        assert "calculator" in answer.text  # the partial result, without another model call


async def test_a_calls_deadline_ends_the_stream_never_the_task(tmp_path: Path) -> None:
    """A gateway's 0.6 s deadline on Execute: the stream ends DEADLINE_EXCEEDED, the task
    carries on and completes with the model's real answer."""
    replies = [{"delay_seconds": 2, "text": "late but whole"}]
    async with harness(tmp_path, replies) as h:
        stream = h.client.execute(
            "slow", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING, timeout=0.6
        )
        first = await anext(stream)
        with pytest.raises(client_errors.DeadlineExceededError):
            async for _ in stream:
                pass
        rest = [e async for e in h.client.stream_task_events(first.task_id)]
        task = await h.client.get_task(first.task_id)
    answer = final(rest)
    assert (answer.text, answer.stop_reason, answer.partial) == (
        "late but whole",
        tasks_pb2.STOP_REASON_FINAL_ANSWER,
        False,
    )
    assert task.status == tasks_pb2.TASK_STATUS_COMPLETED
    assert task.final_answer == "late but whole"


async def test_the_requests_timeout_is_the_tasks_limit(tmp_path: Path) -> None:
    """A task stopped by its own limit before any result FAILS (TASK_LIMIT_REACHED) with
    the limit as its stop reason: no made-up answer, never COMPLETED."""
    replies = [{"delay_seconds": 5, "text": "too late"}]
    async with harness(tmp_path, replies) as h:
        events = await h.run(
            "slow", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING, task_timeout=0.5
        )
        task = await h.client.get_task(events[0].task_id)
    assert events[-1].status_changed.current == tasks_pb2.TASK_STATUS_FAILED
    assert events[-1].status_changed.stop_reason == tasks_pb2.STOP_REASON_DEADLINE
    assert "final_answer" not in kinds(events)
    assert task.status == tasks_pb2.TASK_STATUS_FAILED
    assert task.error.reason == "TASK_LIMIT_REACHED"
    assert task.stop_reason == tasks_pb2.STOP_REASON_DEADLINE
    assert task.final_answer == ""


async def test_plan_and_execute_recovers_from_rate_limits(tmp_path: Path) -> None:
    replies = [
        {"match": PLANNER, "error": {"status": 429, "message": "slow down"}},
        {
            "match": PLANNER,
            "json": {
                "steps": [
                    {
                        "id": "s1",
                        "description": "compute",
                        "tool": "calculator",
                        "arguments": {"expression": "2*21"},
                    }
                ]
            },
        },
        {"match": "You are the critic", "error": {"status": 500, "message": "oops"}},
        {
            "match": "You are the critic",
            "json": {
                "accuracy": 1,
                "completeness": 1,
                "relevance": 1,
                "logic": 1,
                "decision": "accept",
            },
        },
        {"match": SYNTHESIZER, "text": "42"},
    ]
    async with harness(tmp_path, replies) as h:
        events = await h.run("compute 2*21", mode=tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE)
        assert_well_formed(events)
        assert final(events).text == "42"
        assert len(h.llm.requests) == 5
