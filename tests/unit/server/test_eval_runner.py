"""The runner of evaluation runs: the job that holds a replica's runs (a run whose server
stopped, no heartbeat for six rounds, is marked FAILED when any replica's job comes
round), a run that cannot go on ends FAILED saying why, and replayed cases on a server
without replay fail clearly."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from core.errors import StoreUnavailableError
from core.identity import CallContext
from records.evals.model import EvalCase, EvalRun, EvalRunState
from server.services.recorded.eval_runner import NO_REPLAY, STOPPED, EvalRunner, PlannedCase
from stores.evals.memory import InMemoryEvalStore

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def _judges(name: str) -> Any:
    raise ValueError("no judge here")


async def test_runs_whose_server_stopped_are_failed_when_the_job_comes_round() -> None:
    store = InMemoryEvalStore()
    old = EvalRun(
        "evr_old", "acme", "support@2", created_at=NOW, heartbeat_at=NOW - timedelta(minutes=2)
    )
    fresh = EvalRun("evr_fresh", "acme", "support@2", created_at=NOW, heartbeat_at=NOW)
    for run in (old, fresh):
        await store.create_run(run)
    engine: Any = None  # the job never starts a task
    runner = EvalRunner(
        engine, store, _judges, case_timeout_seconds=1, beat_seconds=10, now=lambda: NOW
    )
    job = asyncio.create_task(runner.held())
    await asyncio.sleep(0.05)
    job.cancel()
    await asyncio.gather(job, return_exceptions=True)

    failed = await store.get("acme", "evr_old")
    assert failed is not None
    assert (failed.state, failed.error, failed.finished_at) == (EvalRunState.FAILED, STOPPED, NOW)
    kept = await store.get("acme", "evr_fresh")
    assert kept is not None
    assert kept.state is EvalRunState.RUNNING


class _Unwritable(InMemoryEvalStore):
    """Keeps runs, but no result can be written (the database went away)."""

    async def add_result(self, *args: Any) -> None:
        raise StoreUnavailableError("the database", "unreachable")


def _replayed(case_id: str) -> PlannedCase:
    return PlannedCase(0, EvalCase(case_id, from_task_id="task-1"))


async def test_a_run_that_cannot_go_on_ends_failed_saying_why() -> None:
    store = _Unwritable()
    evaluation = EvalRun("evr_1", "acme", "support@2", created_at=NOW, heartbeat_at=NOW)
    await store.create_run(evaluation)
    engine: Any = None  # a replayed case without a replayer never reaches the engine
    runner = EvalRunner(engine, store, _judges, case_timeout_seconds=1, now=lambda: NOW)
    runner.start(evaluation, CallContext(), [_replayed("q1")], 1, None)
    for _ in range(100):
        if not runner.running:
            break
        await asyncio.sleep(0.01)
    ended = await store.get("acme", "evr_1")
    assert ended is not None
    assert ended.state is EvalRunState.FAILED
    assert ended.error == (
        "the run could not go on: the database is unavailable or overloaded (unreachable); "
        "retry shortly"
    )


async def test_replayed_cases_fail_clearly_without_a_replayer() -> None:
    store = InMemoryEvalStore()
    evaluation = EvalRun("evr_2", "acme", "support@2", created_at=NOW, heartbeat_at=NOW)
    await store.create_run(evaluation)
    engine: Any = None
    runner = EvalRunner(engine, store, _judges, case_timeout_seconds=1, now=lambda: NOW)
    runner.start(evaluation, CallContext(), [_replayed("q1")], 4, None)
    for _ in range(100):
        if not runner.running:
            break
        await asyncio.sleep(0.01)
    ended = await store.get("acme", "evr_2")
    assert ended is not None
    assert ended.state is EvalRunState.FINISHED
    assert [(r.case_id, r.passed, r.error) for r in ended.results] == [("q1", False, NO_REPLAY)]
    assert ended.gate_failures == (
        "pass rate 0.000 is below 1.000 (0 of 1 cases passed; failed: q1)",
    )
