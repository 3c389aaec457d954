"""The evaluation methods of `AgentClient` (a mixin: the client supplies the channel and
the error mapping), over EvalService: datasets, evaluation runs. Storing datasets and
running evaluations need the eval admin role (operator, admin); reading them that or
the auditor role."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

import grpc

from agentd.v1 import evals_pb2
from agentd.v1 import evals_pb2_grpc as pb_grpc


def run_eval_request(
    agent: str,
    *,
    dataset_id: str = "",
    cases: Sequence[evals_pb2.EvalCase] = (),
    from_tasks: evals_pb2.EvalTaskSource | None = None,
    baseline_run_id: str = "",
    parallelism: int = 0,
    gate: evals_pb2.EvalGate | None = None,
    labels: Mapping[str, str] | None = None,
    idempotency_key: str = "",
) -> evals_pb2.RunEvalRequest:
    return evals_pb2.RunEvalRequest(
        agent=agent,
        dataset_id=dataset_id,
        cases=list(cases),
        from_tasks=from_tasks,
        baseline_run_id=baseline_run_id,
        parallelism=parallelism,
        gate=gate,
        labels=dict(labels or {}),
        idempotency_key=idempotency_key,
    )


class EvalMethods:
    _channel: grpc.aio.Channel

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    @cached_property
    def _evals(self) -> pb_grpc.EvalServiceStub:
        return pb_grpc.EvalServiceStub(self._channel)

    async def create_dataset(
        self, dataset: evals_pb2.Dataset, *, timeout: float | None = None
    ) -> evals_pb2.Dataset:
        """Store a dataset of your tenant (its id assigned, cases without one given ids)."""
        request = evals_pb2.CreateDatasetRequest(dataset=dataset)
        kept: evals_pb2.Dataset = await self._unary(self._evals.CreateDataset, request, timeout)
        return kept

    async def get_dataset(
        self, dataset_id: str, *, timeout: float | None = None
    ) -> evals_pb2.Dataset:
        request = evals_pb2.GetDatasetRequest(dataset_id=dataset_id)
        found: evals_pb2.Dataset = await self._unary(self._evals.GetDataset, request, timeout)
        return found

    async def list_datasets(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> evals_pb2.ListDatasetsResponse:
        """One page of your tenant's datasets, newest first, without their cases."""
        request = evals_pb2.ListDatasetsRequest(page_size=page_size, page_token=page_token)
        page: evals_pb2.ListDatasetsResponse = await self._unary(
            self._evals.ListDatasets, request, timeout
        )
        return page

    async def delete_dataset(self, dataset_id: str, *, timeout: float | None = None) -> None:
        request = evals_pb2.DeleteDatasetRequest(dataset_id=dataset_id)
        await self._unary(self._evals.DeleteDataset, request, timeout)

    async def run_eval(
        self, agent: str, *, timeout: float | None = None, **options: Any
    ) -> evals_pb2.EvalRun:
        """Start an evaluation run as `agent` (`id@version`); it answers at once, RUNNING
        (poll `get_eval_run`). Options: those of `run_eval_request`."""
        request = run_eval_request(agent, **options)
        run: evals_pb2.EvalRun = await self._unary(self._evals.RunEval, request, timeout)
        return run

    async def get_eval_run(
        self, eval_run_id: str, *, timeout: float | None = None
    ) -> evals_pb2.EvalRun:
        """An evaluation run with its results so far."""
        request = evals_pb2.GetEvalRunRequest(eval_run_id=eval_run_id)
        run: evals_pb2.EvalRun = await self._unary(self._evals.GetEvalRun, request, timeout)
        return run

    async def list_eval_runs(
        self,
        *,
        agent: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> evals_pb2.ListEvalRunsResponse:
        """One page of your tenant's evaluation runs (of `agent`: `id` or `id@version`),
        newest first, without their results."""
        request = evals_pb2.ListEvalRunsRequest(
            agent=agent, page_size=page_size, page_token=page_token
        )
        page: evals_pb2.ListEvalRunsResponse = await self._unary(
            self._evals.ListEvalRuns, request, timeout
        )
        return page
