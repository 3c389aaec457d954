"""What every server runs over the durable database beside the engine, each a service its
RPCs call and a job of the server: evaluation runs (the service, the runner whose job
holds the runs, the judge's models) and schedules (`server.wiring.schedules`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import grpc

from agent.definitions.catalog import Agents
from agent.engine import Engine
from agent.evals.judge import JudgeModels
from agent.llm.base import Model
from agent.llm.roles import ModelRoles
from agentd.v1 import (
    evals_pb2_grpc,
    schedules_pb2_grpc,
)
from server.rpcs.evals.servicer import EvalServicer
from server.rpcs.schedules.servicer import ScheduleServicer
from server.services.recorded.eval_replays import ServiceReplayer
from server.services.recorded.eval_runner import EvalRunner, Replayer
from server.services.recorded.evals import EvalService
from server.services.recorded.replays import ReplayService
from server.settings import Settings
from server.wiring.models import model_factory
from server.wiring.role_table import role_table
from server.wiring.schedules import Schedules
from stores.build import DurableStores, LiveStores
from stores.evals.sql import SqlEvalStore


def judge_models(models: ModelRoles | None, allowed: Sequence[str] = ()) -> JudgeModels:
    """The judge's model by name: the critic role's for "", else a sibling of the server's
    model, one agents may name (AGENTD_AGENT_MODELS, when set); ValueError when no model
    is configured, the name is not allowed, or none can be made by it."""
    make = model_factory(models)

    def chosen(name: str) -> Model:
        if models is None:
            raise ValueError("no language model is configured")
        if not name:
            return models.for_role("critic")
        if allowed and name not in allowed:
            raise ValueError(f"{name!r} is not a model agents may name here (AGENTD_AGENT_MODELS)")
        if make is None:
            raise ValueError(f"no model {name!r} can be made on this server")
        return make(name, 0.0, None)

    return chosen


@dataclass
class Evals:
    """Evaluation runs on one server: the service the RPCs call, the runner of its runs."""

    service: EvalService
    runner: EvalRunner

    @classmethod
    def build(
        cls,
        settings: Settings,
        engine: Engine,
        durable: DurableStores,
        live: LiveStores,
        agents: Agents,
        models: ModelRoles | None,
        replayer: Replayer | None = None,
    ) -> Evals:
        """The store on the durable database; recorded cases replayed through ReplayTask's
        service unless another `replayer` is given."""
        store = SqlEvalStore(durable.database)
        replayer = replayer or ServiceReplayer(ReplayService(engine))
        runner = EvalRunner(
            engine,
            store,
            judge_models(models, settings.agent_models),
            replayer,
            case_timeout_seconds=settings.task_timeout_seconds + 30.0,
        )
        service = EvalService(
            store,
            runner,
            engine,
            agents,
            role_table(settings),
            live.idempotency,
            replica=engine.replica,
        )
        return cls(service, runner)

    def start(self) -> asyncio.Task[None]:
        """The job holding this process's runs (cancelled when the server stops: its runs
        are then marked FAILED)."""
        return asyncio.create_task(self.runner.held(), name="agentd-evals")


@dataclass
class OwnServices:
    """What every server runs over the durable database beside the engine: evaluation
    runs and schedules (each a service its RPCs call and a job of the server)."""

    evals: Evals
    schedules: Schedules

    def register(self, server: grpc.aio.Server) -> None:
        evals_pb2_grpc.add_EvalServiceServicer_to_server(EvalServicer(self.evals.service), server)
        schedules = ScheduleServicer(self.schedules.service)
        schedules_pb2_grpc.add_ScheduleServiceServicer_to_server(schedules, server)

    def start(self) -> list[asyncio.Task[None]]:
        return [self.evals.start(), self.schedules.start()]
