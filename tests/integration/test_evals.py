"""Evaluation runs through a live server on the scripted model: 30 cases graded by every
kind of grader (exact, contains, regex, json_schema, trajectory, judge, ceiling) run as
versions 2 and 3 of an agent. The script answers version 2's instructions correctly and
version 3's (they carry V3_MARK) wrongly: version 2's run passes its gate, version 3's
run against version 2's as its baseline fails it, naming the regressed cases, and
`agentd eval run` exits 1 naming them for version 3 and 0 for version 2. The cases'
tasks are labelled with their run (ListTasks finds them)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.llm.fakes.script import Script
from agentd.v1 import agents_pb2, evals_pb2, tasks_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from agentd_client.evals.files import dataset_from_data
from agentd_client.sync import AgentClient as SyncClient
from clients.cli import main as cli_main
from stores.evals.sql import SqlEvalStore
from tests.integration.harness import Harness, harness

V3_MARK = "V3-TERSE-MODE"
PRODUCT = "7006652"  # 1234 * 5678: the calculator's answer, in the request after the call
RIGHT = {"score": 0.9, "reasoning": "The answer is correct and polite."}
WRONG = {"score": 0.1, "reasoning": "The answer does not address the question."}


def _cases() -> list[dict[str, Any]]:
    """30 cases; each input carries its id, which is what the script matches."""
    cases: list[dict[str, Any]] = []
    capitals = ["France", "Italy", "Spain", "Japan", "Kenya", "Peru"]
    for n, country in enumerate(capitals, 1):
        cases.append(_case(n, f"Capital of {country}?", [{"exact": f"Capital-{n:02}"}]))
    for n in range(7, 12):
        cases.append(_case(n, "Describe the refund policy.", [{"contains": f"refund window {n}"}]))
    for n in range(12, 17):
        cases.append(_case(n, "Give an order number.", [{"regex": r"^ORD-\d{5}$"}]))
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}, "unit": {"type": "string"}},
        "required": ["answer", "unit"],
    }
    for n in range(17, 21):
        cases.append(_case(n, "How many apples, as JSON?", [{"json_schema": schema}]))
    matches = ["in_order", "any_order", "subset", "in_order"]
    for n, match in zip(range(21, 25), matches, strict=True):
        graders: list[dict[str, Any]] = [
            {"trajectory": {"tools": ["calculator"], "match": match}},
            {"contains": PRODUCT, "name": "product"},
        ]
        cases.append(_case(n, "What is 1234 * 5678? Use the calculator.", graders))
    for n in range(25, 29):
        rubric = {"rubric": "The answer names a correct greeting.", "pass_score": 0.5}
        cases.append(_case(n, "Greet the customer.", [{"judge": rubric}]))
    for n in range(29, 31):
        ceiling = {"ceiling": {"max_tokens": 5000, "max_cost_micros": 1000, "max_seconds": 30}}
        cases.append(_case(n, "Say anything short.", [ceiling]))
    for case in cases[:6]:  # a ceiling on others too: graders add up
        case["graders"].append({"ceiling": {"max_tokens": 5000}})
    return cases


def _case(n: int, question: str, graders: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": f"q{n:02}", "input": f"[q{n:02}] {question}", "graders": graders}


def _answer(n: int) -> str:
    if n <= 6:
        return f"Capital-{n:02}"
    if n <= 11:
        return f"Yes: the refund window {n} days applies."
    if n <= 16:
        return f"ORD-{10000 + n}"
    if n <= 20:
        return json.dumps({"answer": n, "unit": "apples"})
    return f"Hello and welcome, customer {n}!"


def _script() -> Script:
    executor: list[dict[str, Any]] = [{"match": V3_MARK, "text": "I cannot help.", "repeat": -1}]
    executor.append({"match": PRODUCT, "text": f"The product is {PRODUCT}.", "repeat": -1})
    for n in range(1, 31):
        mark = f"[q{n:02}]"
        if 21 <= n <= 24:
            call = {"name": "calculator", "arguments": {"expression": "1234 * 5678"}}
            executor.append({"match": mark, "tool_calls": [call], "repeat": -1})
        else:
            executor.append({"match": mark, "text": _answer(n), "repeat": -1})
    judge = [
        {"match": "<answer>\nHello and welcome", "json": RIGHT, "repeat": -1},
        {"json": WRONG, "repeat": -1},
    ]
    return Script.parse({"replies": judge, "roles": {"executor": executor}})


async def _agent_versions(client: AgentClient) -> None:
    """support@1, @2 (answers well) and @3 (whose instructions the script answers badly)."""
    fc = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
    base = agents_pb2.Agent(id="support", tools=["calculator"], mode=fc)
    for instructions in ("You help (v1).", "You help customers (v2).", f"{V3_MARK}: be terse."):
        agent = agents_pb2.Agent()
        agent.CopyFrom(base)
        agent.instructions = instructions
        if instructions.endswith("(v1)."):
            await client.create_agent(agent)
        else:
            await client.update_agent(agent)


async def _finished(client: AgentClient, eval_run_id: str) -> evals_pb2.EvalRun:
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        run = await client.get_eval_run(eval_run_id)
        if run.state != evals_pb2.EVAL_RUN_STATE_RUNNING:
            return run
        await asyncio.sleep(0.2)
    raise AssertionError(f"evaluation run {eval_run_id} did not finish")


def _cli(h: Harness, *argv: str) -> int:
    return cli_main(["--address", h.running.address, "--api-key", "", *argv])


@pytest.fixture
def dataset_file(tmp_path: Path) -> Path:
    path = tmp_path / "support.yaml"
    path.write_text(yaml.safe_dump({"name": "support", "cases": _cases()}))
    return path


async def test_version_2_passes_its_gate_and_version_3_regresses_against_it(
    tmp_path: Path, dataset_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate_on = {"promotion_gate": True}
    async with harness(tmp_path, _script(), anonymous_roles="admin,approver", **gate_on) as h:
        client = h.client
        await _agent_versions(client)
        dataset = dataset_from_data(yaml.safe_load(dataset_file.read_text()), "support")
        kinds = {g.WhichOneof("kind") for c in dataset.cases for g in c.graders}
        assert kinds == {
            "exact",
            "contains",
            "regex",
            "json_schema",
            "trajectory",
            "judge",
            "ceiling",
        }
        kept = await client.create_dataset(dataset)
        assert len(kept.cases) == 30

        started = await client.run_eval("support@2", dataset_id=kept.dataset_id, parallelism=8)
        assert started.state == evals_pb2.EVAL_RUN_STATE_RUNNING
        assert started.total_cases == 30
        v2 = await _finished(client, started.eval_run_id)
        failed = [
            (r.case_id, r.error, [g.reason for g in r.graders]) for r in v2.results if not r.passed
        ]
        assert failed == []
        assert v2.gate_passed, v2.gate_failures
        assert v2.aggregate.pass_rate == 1.0
        assert [r.case_id for r in v2.results] == [f"q{n:02}" for n in range(1, 31)]
        by_kind = v2.aggregate.pass_rate_by_grader
        assert {k: by_kind[k] for k in ("exact", "trajectory", "judge", "ceiling")} == {
            "exact": 1.0,
            "trajectory": 1.0,
            "judge": 1.0,
            "ceiling": 1.0,
        }
        judged = next(g for g in v2.results[24].graders if g.kind == "judge")
        assert judged.score == 0.9
        assert "The answer is correct and polite." in judged.reason
        assert v2.results[0].answer == "Capital-01"
        assert v2.results[0].usage.total_tokens > 0

        labelled = await client.list_tasks(labels={"agentd.eval_run": v2.eval_run_id})
        assert len(labelled.tasks) == 30
        assert {t.agent for t in labelled.tasks} == {"support@2"}

        started3 = await client.run_eval(
            "support@3",
            dataset_id=kept.dataset_id,
            baseline_run_id=v2.eval_run_id,
            parallelism=8,
        )
        v3 = await _finished(client, started3.eval_run_id)
        assert v3.agent == "support@3"
        assert not v3.gate_passed
        regressed = list(v3.comparison.regressed_cases)
        assert regressed == [f"q{n:02}" for n in range(1, 29)]  # the ceilings alone still pass
        assert v3.comparison.baseline_run_id == v2.eval_run_id
        assert v3.comparison.pass_rate_delta == pytest.approx(-28 / 30)
        assert any("28 cases regressed" in f and "q01, q02" in f for f in v3.gate_failures)
        wrong = next(g for g in v3.results[24].graders if g.kind == "judge")
        assert not wrong.passed
        assert "does not address the question" in wrong.reason
        trajectory = next(g for g in v3.results[20].graders if g.kind == "trajectory")
        assert "called: []" in trajectory.reason

        listed = await client.list_eval_runs(agent="support")
        assert [r.eval_run_id for r in listed.runs] == [v3.eval_run_id, v2.eval_run_id]
        assert list(listed.runs[0].results) == []

        capsys.readouterr()
        refused = await asyncio.to_thread(
            _cli,
            h,
            "eval",
            "run",
            "--dataset",
            str(dataset_file),
            "--agent",
            "support@3",
            "--baseline",
            v2.eval_run_id,
            "--parallelism",
            "8",
        )
        out = capsys.readouterr().out
        assert refused == 1
        assert "gate: FAILED" in out
        assert "28 cases regressed (allowed 0): q01, q02, q03" in out
        assert "q24" in out.split("gate: FAILED")[1]

        # promotion asks for a finished run of exactly that version that passed its gate
        runs = SqlEvalStore(h.server.durable.database)
        promotable = await runs.latest_passed("default", "support", 2)
        assert promotable is not None
        assert promotable.eval_run_id == v2.eval_run_id
        assert (await client.get_agent("support")).version == 1  # the gate: v1 serves still
        with pytest.raises(client_errors.PromotionRefusedError) as refused_v3:
            await client.promote_agent_version("support", 3)
        assert "no evaluation run of that version passed its gate" in refused_v3.value.message
        with pytest.raises(client_errors.PromotionRefusedError) as named_v3:
            await client.promote_agent_version("support", 3, eval_run_id=v3.eval_run_id)
        assert "did not pass its gate: pass rate 0.067" in named_v3.value.message
        assert "28 cases regressed" in named_v3.value.message
        promoted = await client.promote_agent_version("support", 2)
        assert (promoted.version, promoted.promoted_version) == (2, 2)
        served = await client.get_agent("support")
        assert (served.version, served.promoted_version) == (2, 2)

        passed = await asyncio.to_thread(
            _cli,
            h,
            "eval",
            "run",
            "--dataset",
            str(dataset_file),
            "--agent",
            "support@2",
            "--baseline",
            v2.eval_run_id,
            "--threshold",
            "judge=1",
            "--parallelism",
            "8",
        )
        out = capsys.readouterr().out
        assert passed == 0, out
        assert "gate: passed" in out
        assert "30/30 passed" in out

        assert await asyncio.to_thread(_cli, h, "eval", "show", v3.eval_run_id) == 0
        assert "28 cases regressed (allowed 0)" in capsys.readouterr().out
        assert await asyncio.to_thread(_cli, h, "eval", "list", "--agent", "support@3") == 0
        listing = capsys.readouterr().out.splitlines()
        assert listing[0].split() == ["id", "agent", "state", "passed", "gate", "created", "by"]
        assert [line.split()[1:5] for line in listing[1:]] == [
            ["support@3", "finished", "2/30", "failed"],
            ["support@3", "finished", "2/30", "failed"],
        ]


async def test_malformed_cases_are_refused_naming_the_case_and_field(tmp_path: Path) -> None:
    async with harness(tmp_path, [], anonymous_roles="admin,approver") as h:
        bad = evals_pb2.Dataset(
            name="bad",
            cases=[
                evals_pb2.EvalCase(case_id="ok", input="hi", graders=[evals_pb2.Grader(exact="x")]),
                evals_pb2.EvalCase(
                    case_id="broken",
                    input="hi",
                    graders=[evals_pb2.Grader(regex="(unclosed"), evals_pb2.Grader(exact="")],
                ),
            ],
        )
        with pytest.raises(client_errors.InvalidArgumentError) as refused:
            await h.client.create_dataset(bad)
        fields = {v.field: v.description for v in refused.value.field_violations}
        assert set(fields) == {
            "dataset.cases[1].graders[0].regex",
            "dataset.cases[1].graders[1].exact",
        }
        assert all(d.startswith("case 'broken':") for d in fields.values())
        with pytest.raises(client_errors.DatasetNotFoundError):
            await h.client.get_dataset("ds_nope")
        with pytest.raises(client_errors.EvalRunNotFoundError):
            await h.client.get_eval_run("evr_nope")
        assert await h.client.health("agentd.v1.EvalService") == "SERVING"
        await h.server.audit.flush()  # EvalService's calls are audited as any RPC
        audited = await h.client.list_audit_records("rpc")
        calls = [(r.rpc.method, r.rpc.code) for r in audited.records]
        assert calls[-3:] == [
            ("/agentd.v1.EvalService/CreateDataset", "INVALID_ARGUMENT"),
            ("/agentd.v1.EvalService/GetDataset", "NOT_FOUND"),
            ("/agentd.v1.EvalService/GetEvalRun", "NOT_FOUND"),
        ]


async def test_a_replayed_case_of_a_task_that_is_not_there_fails_naming_it(
    tmp_path: Path, dataset_file: Path
) -> None:
    async with harness(tmp_path, _script(), anonymous_roles="admin,approver") as h:
        await _agent_versions(h.client)
        case = evals_pb2.EvalCase(case_id="again", from_task_id="task-recorded")
        case.graders.add(exact="x")
        started = await h.client.run_eval("support@2", cases=[case], idempotency_key="k1")
        again = await h.client.run_eval("support@2", cases=[case], idempotency_key="k1")
        assert again.eval_run_id == started.eval_run_id  # a retry answers the same run
        stricter = evals_pb2.EvalGate(min_pass_rate=1, allowed_regressed_cases=0, max_regression=0)
        with pytest.raises(client_errors.IdempotencyConflictError):  # not the first run's
            await h.client.run_eval(
                "support@2", cases=[case], idempotency_key="k1", gate=stricter, parallelism=2
            )
        run = await _finished(h.client, started.eval_run_id)
        assert run.state == evals_pb2.EVAL_RUN_STATE_FINISHED
        assert not run.gate_passed
        assert run.results[0].error == (
            "the case's task did not start: no task with id 'task-recorded'"
        )

        def read_synchronously() -> evals_pb2.EvalRun:
            with SyncClient(h.running.address, api_key="") as sync:
                listed = sync.list_eval_runs(agent="support@2")
                assert [r.eval_run_id for r in listed.runs] == [run.eval_run_id]
                return sync.get_eval_run(run.eval_run_id)

        assert await asyncio.to_thread(read_synchronously) == run


def test_eval_run_without_its_options_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as usage:
        cli_main(["eval", "run", "--agent", "support@2"])
    assert usage.value.code == 2
    odd = tmp_path / "cases.txt"
    odd.write_text("nothing")
    assert cli_main(["eval", "run", "--dataset", str(odd), "--agent", "support@2"]) == 2


async def test_a_run_whose_server_stops_is_failed_and_reads_so_after_a_restart(
    tmp_path: Path,
) -> None:
    held = Script.parse({"roles": {"executor": [{"hold": "never", "text": "late", "repeat": -1}]}})
    case = evals_pb2.EvalCase(case_id="slow", input="[q01] wait")
    case.graders.add(contains="late")
    async with harness(tmp_path, held, anonymous_roles="admin,approver") as h:
        await _agent_versions(h.client)
        run = await h.client.run_eval("support@2", cases=[case])
        for _ in range(200):  # the case's task asks the model, which holds its reply
            if h.llm.held("never"):
                break
            await asyncio.sleep(0.05)
        assert h.llm.held("never"), "the case's task never asked the model"
    async with harness(tmp_path, [], anonymous_roles="admin,approver") as again:
        stopped = await again.client.get_eval_run(run.eval_run_id)
        assert stopped.state == evals_pb2.EVAL_RUN_STATE_FAILED
        assert stopped.error == (
            "case slow: the case's task was cancelled: the server shut down; not every case ran"
        )
        assert not stopped.gate_passed


async def test_cases_are_drawn_from_the_callers_completed_tasks_by_label(tmp_path: Path) -> None:
    async with harness(tmp_path, _script(), anonymous_roles="admin,approver") as h:
        await _agent_versions(h.client)
        recorded = []
        for n in (1, 2, 3):
            labels = {"suite": "smoke" if n < 3 else "other"}
            task = await h.client.start_task(f"[q0{n}] again", agent="support@2", labels=labels)
            recorded.append(task.task_id)
        for task_id in recorded:
            for _ in range(100):
                if (await h.client.get_task(task_id)).status == tasks_pb2.TASK_STATUS_COMPLETED:
                    break
                await asyncio.sleep(0.05)
        source = evals_pb2.EvalTaskSource(agent="support", labels={"suite": "smoke"}, limit=5)
        started = await h.client.run_eval("support@3", from_tasks=source)
        assert started.total_cases == 2
        drawn = await _finished(h.client, started.eval_run_id)
        assert [r.case_id for r in drawn.results] == [f"task-{t}" for t in recorded[1::-1]]
        # replayed as version 3 (ReplayTask's service): the recordings answer its tool
        # calls, and its answers are graded against the recorded ones
        assert [r.replay.source_task_id for r in drawn.results] == recorded[1::-1]
        assert all(r.error == "" and r.task_id for r in drawn.results), drawn.results
        for result in drawn.results:
            replayed = await h.client.get_task(result.task_id)
            assert replayed.labels["agentd.replay_of"] == result.replay.source_task_id
            assert replayed.agent == "support@3"
        bad = evals_pb2.EvalTaskSource(limit=501, graders=[evals_pb2.Grader(regex="(")])
        gate = evals_pb2.EvalGate(max_regression=2)
        with pytest.raises(client_errors.InvalidArgumentError) as refused:
            await h.client.run_eval("support@3", from_tasks=bad, gate=gate, parallelism=33)
        assert [v.field for v in refused.value.field_violations] == [
            "parallelism",
            "from_tasks.graders[0].regex",
            "from_tasks.limit",
            "gate.max_regression",
        ]
