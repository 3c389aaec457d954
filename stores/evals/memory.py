"""Datasets and evaluation runs in this process's memory (one replica, nothing kept past
the process)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from records.evals.model import CaseResult, Dataset, EvalRun, EvalRunState
from records.paging import Page, TimeCursor
from stores.evals.base import agent_matches, dataset_cursor, run_cursor


def _newest_after(created_at: datetime | None, item_id: str, after: TimeCursor | None) -> bool:
    assert created_at is not None
    return after is None or (created_at, item_id) < (after.created_at, after.item_id)


class InMemoryEvalStore:
    def __init__(self) -> None:
        self._datasets: dict[tuple[str, str], Dataset] = {}
        self._runs: dict[tuple[str, str], EvalRun] = {}
        self._results: dict[tuple[str, str], dict[int, CaseResult]] = {}

    async def create_dataset(self, dataset: Dataset) -> None:
        self._datasets[dataset.tenant, dataset.dataset_id] = dataset

    async def get_dataset(self, tenant: str, dataset_id: str) -> Dataset | None:
        return self._datasets.get((tenant, dataset_id))

    async def list_datasets(
        self, tenant: str, limit: int, after: TimeCursor | None = None
    ) -> Page[Dataset, TimeCursor]:
        found = sorted(
            (
                replace(d, cases=())
                for (t, _), d in self._datasets.items()
                if t == tenant and _newest_after(d.created_at, d.dataset_id, after)
            ),
            key=lambda d: (d.created_at, d.dataset_id),
            reverse=True,
        )
        return Page.cut(found[: limit + 1], limit, dataset_cursor)

    async def delete_dataset(self, tenant: str, dataset_id: str) -> bool:
        return self._datasets.pop((tenant, dataset_id), None) is not None

    async def create_run(self, evaluation: EvalRun) -> None:
        self._runs[evaluation.tenant, evaluation.eval_run_id] = evaluation
        self._results[evaluation.tenant, evaluation.eval_run_id] = {}

    async def get(self, tenant: str, eval_run_id: str) -> EvalRun | None:
        evaluation = self._runs.get((tenant, eval_run_id))
        if evaluation is None:
            return None
        results = self._results[tenant, eval_run_id]
        return replace(evaluation, results=tuple(results[p] for p in sorted(results)))

    async def list_runs(
        self, tenant: str, agent: str, limit: int, after: TimeCursor | None = None
    ) -> Page[EvalRun, TimeCursor]:
        found = sorted(
            (
                r
                for (t, _), r in self._runs.items()
                if t == tenant
                and agent_matches(r.agent, agent)
                and _newest_after(r.created_at, r.eval_run_id, after)
            ),
            key=lambda r: (r.created_at, r.eval_run_id),
            reverse=True,
        )
        return Page.cut(found[: limit + 1], limit, run_cursor)

    async def add_result(
        self, tenant: str, eval_run_id: str, position: int, result: CaseResult, at: datetime
    ) -> None:
        key = (tenant, eval_run_id)
        if key in self._runs:
            self._results[key][position] = result
            self._runs[key] = replace(self._runs[key], heartbeat_at=at)

    async def finish(self, evaluation: EvalRun) -> None:
        key = (evaluation.tenant, evaluation.eval_run_id)
        if key in self._runs:
            self._runs[key] = replace(evaluation, results=())

    async def latest_passed(self, tenant: str, agent_id: str, version: int) -> EvalRun | None:
        agent = f"{agent_id}@{version}"
        passed = [
            r
            for (t, _), r in self._runs.items()
            if t == tenant
            and r.agent == agent
            and r.state is EvalRunState.FINISHED
            and r.gate_passed
        ]
        if not passed:
            return None
        newest = max(passed, key=lambda r: (r.finished_at, r.created_at, r.eval_run_id))
        return await self.get(tenant, newest.eval_run_id)

    async def beat(self, eval_run_ids: Sequence[str], at: datetime) -> None:
        wanted = set(eval_run_ids)
        for key, evaluation in self._runs.items():
            if evaluation.eval_run_id in wanted and evaluation.state is EvalRunState.RUNNING:
                self._runs[key] = replace(evaluation, heartbeat_at=at)

    async def fail_stale(self, before: datetime, error: str, at: datetime) -> int:
        stale = [
            key
            for key, evaluation in self._runs.items()
            if evaluation.state is EvalRunState.RUNNING
            and (evaluation.heartbeat_at or evaluation.created_at or at) < before
        ]
        for key in stale:
            evaluation = self._runs[key]
            self._runs[key] = replace(
                evaluation, state=EvalRunState.FAILED, error=error, finished_at=at
            )
        return len(stale)
