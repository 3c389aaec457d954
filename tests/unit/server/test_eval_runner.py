"""The job that holds a replica's evaluation runs: a run whose server stopped (no
heartbeat for six rounds) is marked FAILED when any replica's job comes round, and the
job's own runs are kept beating."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from records.evals.model import EvalRun, EvalRunState
from server.services.eval_runner import STOPPED, EvalRunner
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
