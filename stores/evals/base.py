"""Where datasets and evaluation runs are kept (`records.evals.model`).

Contract (tests/contract/test_evals.py runs it on memory, SQLite and PostgreSQL):
- Datasets belong to a tenant: `get_dataset` and `delete_dataset` of another tenant's id
  find nothing; `list_datasets` is newest first, without the cases.
- `create_run` keeps a run as given (RUNNING, no results). `add_result` keeps one case's
  result at its position among the run's cases (a position kept twice keeps the last),
  and the owner's heartbeat; `get` answers the results so far in position order, so any
  replica reading the run sees its progress. `finish` writes the run's end: its state,
  aggregate, comparison, gate and error (the results stay as added).
- `list_runs` is newest first, without the results, of one agent (`id`: any version,
  `id@version`: that one) or every agent ("").
- `latest_passed(tenant, agent_id, version)` is the newest run of that agent version that
  FINISHED and passed its gate (None: none did): what promoting the version asks.
- `beat` renews the heartbeat of runs a replica owns; `fail_stale` marks FAILED (with
  `error`) the RUNNING runs whose heartbeat is older than `before`: their server stopped.
Writes on SQL go through the database's one writer and return once committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from records.evals.model import CaseResult, Dataset, EvalRun
from records.paging import Page, TimeCursor


class EvalStore(Protocol):
    async def create_dataset(self, dataset: Dataset) -> None: ...

    async def get_dataset(self, tenant: str, dataset_id: str) -> Dataset | None: ...

    async def list_datasets(
        self, tenant: str, limit: int, after: TimeCursor | None = None
    ) -> Page[Dataset, TimeCursor]: ...

    async def delete_dataset(self, tenant: str, dataset_id: str) -> bool: ...

    async def create_run(self, evaluation: EvalRun) -> None: ...

    async def get(self, tenant: str, eval_run_id: str) -> EvalRun | None: ...

    async def list_runs(
        self, tenant: str, agent: str, limit: int, after: TimeCursor | None = None
    ) -> Page[EvalRun, TimeCursor]: ...

    async def add_result(
        self, tenant: str, eval_run_id: str, position: int, result: CaseResult, at: datetime
    ) -> None: ...

    async def finish(self, evaluation: EvalRun) -> None: ...

    async def latest_passed(self, tenant: str, agent_id: str, version: int) -> EvalRun | None: ...

    async def beat(self, eval_run_ids: Sequence[str], at: datetime) -> None: ...

    async def fail_stale(self, before: datetime, error: str, at: datetime) -> int: ...


def agent_matches(run_agent: str, wanted: str) -> bool:
    """Whether a run as `run_agent` (`id@version`) is one of `wanted` (`id`, `id@version`
    or "" for any)."""
    if not wanted:
        return True
    if "@" in wanted:
        return run_agent == wanted
    return run_agent.split("@", 1)[0] == wanted


def run_cursor(evaluation: EvalRun) -> TimeCursor:
    assert evaluation.created_at is not None
    return TimeCursor(evaluation.created_at, evaluation.eval_run_id)


def dataset_cursor(dataset: Dataset) -> TimeCursor:
    assert dataset.created_at is not None
    return TimeCursor(dataset.created_at, dataset.dataset_id)
