"""The EvalService servicer: datasets and evaluation runs, over `EvalService`."""

from __future__ import annotations

from agentd.v1 import evals_pb2_grpc as pb_grpc
from server.rpcs.evals.datasets import DatasetRpcs
from server.rpcs.evals.runs import EvalRunRpcs
from server.services.recorded.evals import EvalService


class EvalServicer(DatasetRpcs, EvalRunRpcs, pb_grpc.EvalServiceServicer):
    def __init__(self, evals: EvalService) -> None:
        self._evals = evals
