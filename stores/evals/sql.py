"""Datasets and evaluation runs in SQL (SQLite or PostgreSQL): `stores.evals.tables`,
migration 0029. A case's result is a row of its own, written as the case finishes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, or_, select, update

from records.evals.codec import (
    aggregate_from_json,
    aggregate_to_json,
    cases_from_json,
    cases_to_json,
    comparison_from_json,
    comparison_to_json,
    gate_from_json,
    gate_to_json,
    result_from_json,
    result_to_json,
)
from records.evals.model import CaseResult, Dataset, EvalRun, EvalRunState
from records.paging import Page, TimeCursor
from stores.evals.base import dataset_cursor, run_cursor
from stores.evals.tables import eval_datasets, eval_results, eval_runs
from stores.sql.database import Database
from stores.sql.times import aware

_D = eval_datasets.c
_R = eval_runs.c
_X = eval_results.c
RUNNING = EvalRunState.RUNNING.value


def _dataset(row: Any, with_cases: bool) -> Dataset:
    return Dataset(
        dataset_id=row.dataset_id,
        tenant=row.tenant,
        name=row.name,
        description=row.description,
        cases=cases_from_json(json.loads(row.cases)) if with_cases else (),
        created_by=row.created_by,
        created_at=aware(row.created_at),
    )


def _run(row: Any, results: Sequence[CaseResult] = ()) -> EvalRun:
    comparison = json.loads(row.comparison) if row.comparison else None
    return EvalRun(
        eval_run_id=row.eval_run_id,
        tenant=row.tenant,
        agent=f"{row.agent_id}@{row.version}",
        dataset_id=row.dataset_id,
        state=EvalRunState(row.state),
        results=tuple(results),
        aggregate=aggregate_from_json(json.loads(row.aggregate)),
        comparison=comparison_from_json(comparison),
        gate=gate_from_json(json.loads(row.gate)),
        gate_passed=row.gate_passed,
        gate_failures=tuple(json.loads(row.gate_failures)),
        error=row.error,
        created_by=row.created_by,
        created_at=aware(row.created_at),
        finished_at=aware(row.finished_at),
        labels=dict(json.loads(row.labels)),
        total_cases=row.total_cases,
        baseline_run_id=row.baseline_run_id,
        owner=row.owner,
        heartbeat_at=aware(row.heartbeat_at),
    )


def _ending(evaluation: EvalRun) -> dict[str, Any]:
    """The columns a run's end (and its start) writes."""
    comparison = comparison_to_json(evaluation.comparison)
    return {
        "state": evaluation.state.value,
        "aggregate": json.dumps(aggregate_to_json(evaluation.aggregate)),
        "comparison": json.dumps(comparison) if comparison is not None else None,
        "gate_passed": evaluation.gate_passed,
        "gate_failures": json.dumps(list(evaluation.gate_failures)),
        "error": evaluation.error,
        "finished_at": evaluation.finished_at,
    }


def _newest_after(columns: Any, id_column: Any, after: TimeCursor | None) -> Any:
    if after is None:
        return and_(True)
    return or_(
        columns.created_at < after.created_at,
        and_(columns.created_at == after.created_at, id_column < after.item_id),
    )


class SqlEvalStore:
    """EvalStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def _rows(self, query: Any) -> Sequence[Any]:
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).all()

    async def create_dataset(self, dataset: Dataset) -> None:
        await self._writer.insert(
            eval_datasets,
            {
                "dataset_id": dataset.dataset_id,
                "tenant": dataset.tenant,
                "name": dataset.name,
                "description": dataset.description,
                "cases": json.dumps(cases_to_json(dataset.cases)),
                "case_count": len(dataset.cases),
                "created_by": dataset.created_by,
                "created_at": dataset.created_at,
            },
        )

    async def get_dataset(self, tenant: str, dataset_id: str) -> Dataset | None:
        query = select(eval_datasets).where(_D.tenant == tenant, _D.dataset_id == dataset_id)
        rows = await self._rows(query)
        return _dataset(rows[0], with_cases=True) if rows else None

    async def list_datasets(
        self, tenant: str, limit: int, after: TimeCursor | None = None
    ) -> Page[Dataset, TimeCursor]:
        query = (
            select(eval_datasets)
            .where(_D.tenant == tenant, _newest_after(_D, _D.dataset_id, after))
            .order_by(_D.created_at.desc(), _D.dataset_id.desc())
            .limit(limit + 1)
        )
        found = [_dataset(row, with_cases=False) for row in await self._rows(query)]
        return Page.cut(found, limit, dataset_cursor)

    async def delete_dataset(self, tenant: str, dataset_id: str) -> bool:
        statement = delete(eval_datasets).where(_D.tenant == tenant, _D.dataset_id == dataset_id)
        return await self._writer.execute(statement) > 0

    async def create_run(self, evaluation: EvalRun) -> None:
        await self._writer.insert(
            eval_runs,
            {
                "eval_run_id": evaluation.eval_run_id,
                "tenant": evaluation.tenant,
                "agent_id": evaluation.agent_id,
                "version": evaluation.version,
                "dataset_id": evaluation.dataset_id,
                "total_cases": evaluation.total_cases,
                "gate": json.dumps(gate_to_json(evaluation.gate)),
                "labels": json.dumps(dict(evaluation.labels), sort_keys=True),
                "baseline_run_id": evaluation.baseline_run_id,
                "created_by": evaluation.created_by,
                "created_at": evaluation.created_at,
                "owner": evaluation.owner,
                "heartbeat_at": evaluation.heartbeat_at,
                **_ending(evaluation),
            },
        )

    async def get(self, tenant: str, eval_run_id: str) -> EvalRun | None:
        rows = await self._rows(
            select(eval_runs).where(_R.tenant == tenant, _R.eval_run_id == eval_run_id)
        )
        if not rows:
            return None
        query = select(_X.data).where(_X.eval_run_id == eval_run_id).order_by(_X.position)
        results = [result_from_json(json.loads(row.data)) for row in await self._rows(query)]
        return _run(rows[0], results)

    async def list_runs(
        self, tenant: str, agent: str, limit: int, after: TimeCursor | None = None
    ) -> Page[EvalRun, TimeCursor]:
        query = select(eval_runs).where(
            _R.tenant == tenant, _newest_after(_R, _R.eval_run_id, after)
        )
        if agent:
            agent_id, _, version = agent.partition("@")
            query = query.where(_R.agent_id == agent_id)
            if version:
                query = query.where(_R.version == (int(version) if version.isdigit() else -1))
        query = query.order_by(_R.created_at.desc(), _R.eval_run_id.desc()).limit(limit + 1)
        return Page.cut([_run(row) for row in await self._rows(query)], limit, run_cursor)

    async def add_result(
        self, tenant: str, eval_run_id: str, position: int, result: CaseResult, at: datetime
    ) -> None:
        row = {
            "eval_run_id": eval_run_id,
            "position": position,
            "case_id": result.case_id,
            "passed": result.passed,
            "data": json.dumps(result_to_json(result)),
        }
        key = and_(_X.eval_run_id == eval_run_id, _X.position == position)
        await self._writer.execute_together(
            [
                (delete(eval_results).where(key), None),
                (eval_results.insert(), row),
                (
                    update(eval_runs)
                    .where(_R.tenant == tenant, _R.eval_run_id == eval_run_id)
                    .values(heartbeat_at=at),
                    None,
                ),
            ]
        )

    async def finish(self, evaluation: EvalRun) -> None:
        statement = (
            update(eval_runs)
            .where(_R.tenant == evaluation.tenant, _R.eval_run_id == evaluation.eval_run_id)
            .values(**_ending(evaluation))
        )
        await self._writer.execute(statement)

    async def latest_passed(self, tenant: str, agent_id: str, version: int) -> EvalRun | None:
        query = (
            select(_R.eval_run_id)
            .where(
                _R.tenant == tenant,
                _R.agent_id == agent_id,
                _R.version == version,
                _R.state == EvalRunState.FINISHED.value,
                _R.gate_passed.is_(True),
            )
            .order_by(_R.finished_at.desc(), _R.created_at.desc(), _R.eval_run_id.desc())
            .limit(1)
        )
        rows = await self._rows(query)
        return await self.get(tenant, rows[0].eval_run_id) if rows else None

    async def beat(self, eval_run_ids: Sequence[str], at: datetime) -> None:
        if not eval_run_ids:
            return
        statement = (
            update(eval_runs)
            .where(_R.eval_run_id.in_(list(eval_run_ids)), _R.state == RUNNING)
            .values(heartbeat_at=at)
        )
        await self._writer.execute(statement)

    async def fail_stale(self, before: datetime, error: str, at: datetime) -> int:
        statement = (
            update(eval_runs)
            .where(_R.state == RUNNING, _R.heartbeat_at < before)
            .values(state=EvalRunState.FAILED.value, error=error, finished_at=at)
        )
        return await self._writer.execute(statement)
