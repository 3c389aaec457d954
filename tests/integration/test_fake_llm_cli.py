"""`agentd fake-llm` as a gateway team would run it: a separate process, driven by a script file,
with agentd (another process) pointed at it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentd.v1 import tasks_pb2
from agentd_client.client import AgentClient
from tests.helpers import (
    ServerProcess,
    fake_llm_process,
    fake_llm_with_banner,
    llm_env,
    run_agentd,
    server_process,
)


async def test_agentd_against_the_fake_llm_process(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "replies": [
                    {"tool_calls": [{"name": "calculator", "arguments": {"expression": "40+2"}}]},
                    {"text": "The answer is 42."},
                ]
            }
        )
    )
    with (
        fake_llm_process(script) as base_url,
        server_process(tmp_path, llm_env(base_url)) as served,
    ):
        async with AgentClient(served.address) as client:
            events = [
                e
                async for e in client.execute(
                    "what is 40+2?", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
                )
            ]
    answer = next(e.final_answer for e in events if e.WhichOneof("payload") == "final_answer")
    assert answer.text == "The answer is 42."


FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
PE = tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE
CALL = {"tool_calls": [{"name": "calculator", "arguments": {"expression": "40+2"}}]}


def _answer(events: list[Any]) -> str:
    return str(
        next(e.final_answer.text for e in events if e.WhichOneof("payload") == "final_answer")
    )


def _status(events: list[Any]) -> int:
    return int(next(e.status_changed.current for e in reversed(events)
                    if e.WhichOneof("payload") == "status_changed"))  # fmt: skip


async def _executes(
    served: ServerProcess, mode: tasks_pb2.ExecutionMode.ValueType, count: int, task: str
) -> list[list[Any]]:
    async with AgentClient(served.address) as client:
        return [[e async for e in client.execute(task, mode=mode)] for _ in range(count)]


async def test_a_cycling_script_answers_every_execute(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"cycle": True, "replies": [CALL, {"text": "It is 42."}]}))
    with (
        fake_llm_process(script) as base_url,
        server_process(tmp_path, llm_env(base_url)) as served,
    ):
        runs = await _executes(served, FC, 3, "what is 40+2?")
    assert [_answer(events) for events in runs] == ["It is 42."] * 3
    for events in runs:  # each ran the calculator before answering
        finished = [e.tool_call_finished for e in events
                    if e.WhichOneof("payload") == "tool_call_finished"]  # fmt: skip
        assert [(f.tool_name, f.text) for f in finished] == [("calculator", "42")]


async def test_repeated_replies_serve_several_executes_then_the_script_is_exhausted(
    tmp_path: Path,
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "again", "repeat": 2}, {"text": "last"}]))
    with (
        fake_llm_process(script) as base_url,
        server_process(tmp_path, llm_env(base_url, AGENTD_LLM_MAX_ATTEMPTS="1")) as served,
    ):
        runs = await _executes(served, FC, 4, "say something")
    assert [_answer(events) for events in runs[:3]] == ["again", "again", "last"]
    assert _status(runs[3]) == tasks_pb2.TASK_STATUS_FAILED
    error = next(e.error for e in runs[3] if e.WhichOneof("payload") == "error")
    assert "script exhausted" in error.message


PLAN = {
    "steps": [
        {"id": "s1", "description": "compute 6*7", "tool": "calculator",
         "arguments": {"expression": "6*7"}},
        {"id": "s2", "description": "say what the number means", "depends_on": ["s1"]},
    ]
}  # fmt: skip
VERDICT = {"accuracy": 0.9, "completeness": 0.9, "relevance": 0.9, "logic": 0.9,
           "decision": "accept", "step_id": "", "feedback": ""}  # fmt: skip
BY_ROLE = {
    "cycle": True,
    "roles": {
        "planner": [{"json": PLAN}],
        "executor": [{"text": "42 is the answer to everything."}],
        "critic": [{"json": VERDICT}],
        "synthesizer": [{"text": "6*7 is 42, the answer to everything."}],
    },
}


async def test_per_role_scripts_drive_plan_and_execute_and_every_request_is_logged(
    tmp_path: Path,
) -> None:
    script = tmp_path / "by-role.json"
    script.write_text(json.dumps(BY_ROLE))
    log = tmp_path / "requests.jsonl"
    with (
        fake_llm_with_banner(script, "--log", str(log)) as (base_url, banner),
        server_process(tmp_path, llm_env(base_url)) as served,
    ):
        runs = await _executes(served, PE, 2, "compute 6*7 and say what it means")
    assert banner == (
        f"fake OpenAI-compatible server on {base_url} playing by-role.json: "
        "planner 1 reply, cycling; executor 1 reply, cycling; critic 1 reply, cycling; "
        f"synthesizer 1 reply, cycling; requests logged to {log}"
    )
    for events in runs:
        assert _status(events) == tasks_pb2.TASK_STATUS_COMPLETED
        assert _answer(events) == "6*7 is 42, the answer to everything."
        created = next(e.plan_created for e in events if e.WhichOneof("payload") == "plan_created")
        assert [s.id for s in created.plan.steps] == ["s1", "s2"]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    roles = ["planner", "executor", "critic", "synthesizer"]
    assert [(x["role"], x["entry"], x["round"]) for x in lines] == [
        (role, f"roles.{role}[0]", round) for round in (1, 2) for role in roles
    ]
    assert lines[0]["user"] == "compute 6*7 and say what it means"
    assert "Your step: say what the number means" in lines[1]["user"]
    assert all(set(x) == {"time", "role", "user", "tools", "entry", "round"} for x in lines)


async def test_the_log_goes_to_stderr_with_a_dash_and_names_the_tools_offered(
    tmp_path: Path,
) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([CALL, {"text": "It is 42."}]))
    stderr = tmp_path / "fake.err"
    with (
        fake_llm_with_banner(script, "--log", "-", stderr=stderr) as (base_url, banner),
        server_process(tmp_path, llm_env(base_url)) as served,
    ):
        await _executes(served, FC, 1, "what is 40+2?")
    assert banner.endswith("playing script.json: any request 2 replies; requests logged to stderr")
    lines = [json.loads(line) for line in stderr.read_text().splitlines()]
    assert [(x["role"], x["entry"]) for x in lines] == [
        ("executor", "replies[0]"),
        ("executor", "replies[1]"),
    ]
    assert all("calculator" in x["tools"] for x in lines)
    assert all(x["user"] == "what is 40+2?" for x in lines)


def test_a_script_that_cannot_be_played_is_one_line_and_exit_2(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"roles": {"routr": [{"text": "plan-and-execute"}]}}))
    done = run_agentd(tmp_path, "fake-llm", "--script", str(script), "--port", "0")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"agentd fake-llm: {script}: roles: unknown role 'routr'")
