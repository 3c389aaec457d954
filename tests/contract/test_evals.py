"""The evaluation store contract, in memory, on SQLite and on the machine's PostgreSQL:
datasets per tenant with their cases, runs with their results kept as cases finish (read
in case order by any store on the database), their end, listing by agent, the newest
passed run of an agent version (what promotion asks) and runs whose server stopped."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from records.evals.model import (
    Aggregate,
    CaseResult,
    Comparison,
    Dataset,
    EvalCase,
    EvalRun,
    EvalRunState,
    EvalTurn,
    Gate,
    Grader,
    GraderKind,
    GraderResult,
    GraderThreshold,
    TrajectoryMatch,
)
from records.tasks import TokenUsage
from stores.evals.base import EvalStore
from stores.evals.memory import InMemoryEvalStore
from stores.evals.sql import SqlEvalStore
from stores.sql.database import Database
from tests.contract.conftest import SQL_BACKENDS, migrated_database

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def stores(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[EvalStore, EvalStore]]:
    """Two stores over one database: two replicas."""
    if request.param == "memory":
        shared = InMemoryEvalStore()
        yield shared, shared
        return
    async with migrated_database(request.param, tmp_path) as database:
        other = Database(database.engine)
        try:
            yield SqlEvalStore(database), SqlEvalStore(other)
        finally:
            await other.writer.close()


CASE = EvalCase(
    case_id="q1",
    input="What is 2+2?",
    context={"user": {"tier": "gold"}},
    turns=(EvalTurn("user", "hi"), EvalTurn("assistant", "hello")),
    graders=(
        Grader(GraderKind.EXACT, expected="4"),
        Grader(GraderKind.REGEX, name="digits", expected=r"\d+"),
        Grader(GraderKind.JSON_SCHEMA, schema={"type": "object"}),
        Grader(GraderKind.TRAJECTORY, tools=("calculator",), match=TrajectoryMatch.SUBSET),
        Grader(GraderKind.JUDGE, rubric="correct", model="m", pass_score=0.7),
        Grader(GraderKind.CEILING, max_tokens=100, max_cost_micros=5, max_seconds=2.5),
    ),
)


def a_run(run_id: str, agent: str = "support@2", at: datetime = T0, **fields: object) -> EvalRun:
    values: dict[str, object] = {
        "tenant": "acme",
        "created_by": "ann",
        "created_at": at,
        "heartbeat_at": at,
        "total_cases": 2,
        "gate": Gate(0.5, (GraderThreshold("exact", 0.9),), 0.1, 1),
        "labels": {"ci": "yes"},
        "owner": "replica-1",
        **fields,
    }
    return EvalRun(run_id, agent=agent, **values)  # type: ignore[arg-type]


def a_result(case_id: str, passed: bool) -> CaseResult:
    return CaseResult(
        case_id=case_id,
        task_id=f"task-{case_id}",
        passed=passed,
        graders=(GraderResult("exact", "exact", passed, float(passed), "" if passed else "no"),),
        answer="4",
        usage=TokenUsage(prompt_tokens=10, completion_tokens=2, cost_micros=3),
        seconds=0.5,
    )


async def test_datasets_are_kept_with_their_cases_per_tenant_newest_first(
    stores: tuple[EvalStore, EvalStore],
) -> None:
    store, other = stores
    first = Dataset("ds_1", "acme", "smoke", "the smoke set", (CASE,), "ann", T0)
    second = Dataset(
        "ds_2", "acme", "more", "", (CASE, replace(CASE, case_id="q2")), "ann", T0 + SECOND
    )
    theirs = Dataset("ds_3", "globex", "theirs", "", (CASE,), "bob", T0)
    for dataset in (first, second, theirs):
        await store.create_dataset(dataset)

    assert await other.get_dataset("acme", "ds_1") == first
    assert await other.get_dataset("acme", "ds_3") is None
    page = await other.list_datasets("acme", 1)
    assert [d.dataset_id for d in page.items] == ["ds_2"]
    assert page.items[0].cases == ()
    rest = await other.list_datasets("acme", 5, page.next)
    assert [d.dataset_id for d in rest.items] == ["ds_1"]
    assert rest.next is None
    assert not await other.delete_dataset("globex", "ds_1")
    assert await other.delete_dataset("acme", "ds_1")
    assert await store.get_dataset("acme", "ds_1") is None


async def test_results_are_read_in_case_order_as_they_finish_and_the_end_is_kept(
    stores: tuple[EvalStore, EvalStore],
) -> None:
    store, other = stores
    await store.create_run(a_run("evr_1"))
    await store.add_result("acme", "evr_1", 1, a_result("q2", False), T0 + SECOND)
    progress = await other.get("acme", "evr_1")
    assert progress is not None
    assert progress.state is EvalRunState.RUNNING
    assert [r.case_id for r in progress.results] == ["q2"]
    await store.add_result("acme", "evr_1", 0, a_result("q1", True), T0 + 2 * SECOND)
    progress = await other.get("acme", "evr_1")
    assert progress is not None
    assert progress.results == (a_result("q1", True), a_result("q2", False))
    assert progress.heartbeat_at == T0 + 2 * SECOND

    ended = replace(
        progress,
        state=EvalRunState.FINISHED,
        aggregate=Aggregate(2, 1, 0.5, {"exact": 0.5}, 24, 6, 0.5),
        comparison=Comparison("evr_0", 1.0, -0.5, ("q2",), ()),
        gate_passed=False,
        gate_failures=("1 cases regressed (allowed 0): q2",),
        finished_at=T0 + 3 * SECOND,
    )
    await store.finish(ended)
    assert await other.get("acme", "evr_1") == ended
    assert await other.get("globex", "evr_1") is None


async def test_runs_are_listed_newest_first_by_agent_and_version(
    stores: tuple[EvalStore, EvalStore],
) -> None:
    store, other = stores
    await store.create_run(a_run("evr_1", "support@2", T0))
    await store.create_run(a_run("evr_2", "support@3", T0 + SECOND))
    await store.create_run(a_run("evr_3", "billing@1", T0 + 2 * SECOND))
    await store.create_run(a_run("evr_4", "support@2", T0, tenant="globex"))

    everything = await other.list_runs("acme", "", 10)
    assert [r.eval_run_id for r in everything.items] == ["evr_3", "evr_2", "evr_1"]
    support = await other.list_runs("acme", "support", 1)
    assert [r.eval_run_id for r in support.items] == ["evr_2"]
    rest = await other.list_runs("acme", "support", 1, support.next)
    assert [r.eval_run_id for r in rest.items] == ["evr_1"]
    assert [r.eval_run_id for r in (await other.list_runs("acme", "support@2", 10)).items] == [
        "evr_1"
    ]


async def test_latest_passed_is_the_newest_finished_run_that_passed_its_gate(
    stores: tuple[EvalStore, EvalStore],
) -> None:
    store, other = stores
    assert await other.latest_passed("acme", "support", 2) is None
    for run_id, passed, at in (("evr_1", True, T0), ("evr_2", True, T0 + SECOND)):
        await store.create_run(a_run(run_id, created_at=at))
        await store.finish(
            replace(
                a_run(run_id, created_at=at),
                state=EvalRunState.FINISHED,
                gate_passed=passed,
                finished_at=at + SECOND,
            )
        )
    await store.create_run(a_run("evr_3", created_at=T0 + 2 * SECOND))
    await store.finish(
        replace(a_run("evr_3"), state=EvalRunState.FINISHED, finished_at=T0 + 5 * SECOND)
    )
    await store.create_run(a_run("evr_4", "support@3"))
    await store.finish(
        replace(a_run("evr_4", "support@3"), state=EvalRunState.FINISHED, gate_passed=True)
    )
    await store.create_run(a_run("evr_5", created_at=T0 + 9 * SECOND))  # still running

    latest = await other.latest_passed("acme", "support", 2)
    assert latest is not None
    assert latest.eval_run_id == "evr_2"
    assert latest.gate_passed
    assert await other.latest_passed("globex", "support", 2) is None
    assert await other.latest_passed("support", "support", 4) is None


async def test_running_runs_whose_heartbeat_stopped_are_failed(
    stores: tuple[EvalStore, EvalStore],
) -> None:
    store, other = stores
    await store.create_run(a_run("evr_old", heartbeat_at=T0))
    await store.create_run(a_run("evr_live", heartbeat_at=T0))
    await store.create_run(a_run("evr_done", heartbeat_at=T0))
    await store.finish(replace(a_run("evr_done"), state=EvalRunState.FINISHED, gate_passed=True))
    await store.beat(["evr_live"], T0 + 60 * SECOND)

    gone = await other.fail_stale(
        T0 + 30 * SECOND, "the server running it stopped", T0 + 61 * SECOND
    )
    assert gone == 1
    old = await store.get("acme", "evr_old")
    assert old is not None
    assert old.state is EvalRunState.FAILED
    assert old.error == "the server running it stopped"
    live = await store.get("acme", "evr_live")
    done = await store.get("acme", "evr_done")
    assert live is not None
    assert live.state is EvalRunState.RUNNING
    assert done is not None
    assert done.state is EvalRunState.FINISHED
