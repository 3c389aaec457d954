"""The evaluation methods of the synchronous `AgentClient` (a mixin, as in the async
client: `agentd_client.evals`)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import grpc

from agentd.v1 import evals_pb2
from agentd.v1 import evals_pb2_grpc as pb_grpc
from agentd_client.evals.methods import run_eval_request


class SyncEvalMethods:
    _channel: grpc.Channel

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    @cached_property
    def _evals(self) -> pb_grpc.EvalServiceStub:
        return pb_grpc.EvalServiceStub(self._channel)

    def create_dataset(
        self, dataset: evals_pb2.Dataset, *, timeout: float | None = None
    ) -> evals_pb2.Dataset:
        request = evals_pb2.CreateDatasetRequest(dataset=dataset)
        kept: evals_pb2.Dataset = self._unary(self._evals.CreateDataset, request, timeout)
        return kept

    def get_dataset(self, dataset_id: str, *, timeout: float | None = None) -> evals_pb2.Dataset:
        request = evals_pb2.GetDatasetRequest(dataset_id=dataset_id)
        found: evals_pb2.Dataset = self._unary(self._evals.GetDataset, request, timeout)
        return found

    def list_datasets(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> evals_pb2.ListDatasetsResponse:
        request = evals_pb2.ListDatasetsRequest(page_size=page_size, page_token=page_token)
        page: evals_pb2.ListDatasetsResponse = self._unary(
            self._evals.ListDatasets, request, timeout
        )
        return page

    def delete_dataset(self, dataset_id: str, *, timeout: float | None = None) -> None:
        request = evals_pb2.DeleteDatasetRequest(dataset_id=dataset_id)
        self._unary(self._evals.DeleteDataset, request, timeout)

    def run_eval(
        self, agent: str, *, timeout: float | None = None, **options: Any
    ) -> evals_pb2.EvalRun:
        request = run_eval_request(agent, **options)
        run: evals_pb2.EvalRun = self._unary(self._evals.RunEval, request, timeout)
        return run

    def get_eval_run(self, eval_run_id: str, *, timeout: float | None = None) -> evals_pb2.EvalRun:
        request = evals_pb2.GetEvalRunRequest(eval_run_id=eval_run_id)
        run: evals_pb2.EvalRun = self._unary(self._evals.GetEvalRun, request, timeout)
        return run

    def list_eval_runs(
        self,
        *,
        agent: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> evals_pb2.ListEvalRunsResponse:
        request = evals_pb2.ListEvalRunsRequest(
            agent=agent, page_size=page_size, page_token=page_token
        )
        page: evals_pb2.ListEvalRunsResponse = self._unary(
            self._evals.ListEvalRuns, request, timeout
        )
        return page
