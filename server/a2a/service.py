"""lf.a2a.v1.A2AService on agentd's gRPC server: the SDK's gRPC handler over
`AgentdRequestHandler`, behind the same interceptors as AgentService (auth, tenants,
rate limits, audit, tracing, metrics). Imported only when A2A is on."""

from __future__ import annotations

from typing import Any

import grpc
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers.grpc_handler import GrpcHandler, GrpcServerCallContextBuilder
from a2a.types import a2a_pb2, a2a_pb2_grpc
from a2a.utils.errors import A2AError, InvalidParamsError

from agent.definitions.catalog import Agents
from agent.engine import Engine
from server.a2a.card import RESUME_HEADER, Addresses, CardMaker
from server.a2a.errors import AgentdStatusError
from server.a2a.handler import CALL, RESUME, AgentdRequestHandler
from server.a2a.push_rpcs import PushRpcs
from server.calls import call_context
from server.services.tasks import TaskService
from server.status import abort
from tools.registry import ToolRegistry

SERVICE_NAME: str = a2a_pb2.DESCRIPTOR.services_by_name["A2AService"].full_name


def resume_position(values: list[str]) -> int | None:
    """The `agentd-resume-after` header as a log position; InvalidParamsError if malformed."""
    if not values:
        return None
    value = values[-1].strip()
    if not value.isdigit() or len(value) > 18:
        raise InvalidParamsError(f"{RESUME_HEADER} must be a non-negative integer")
    return int(value)


class _Contexts(GrpcServerCallContextBuilder):
    """The SDK's call context holding agentd's: the principal the interceptors found."""

    def build(self, context: grpc.aio.ServicerContext[Any, Any]) -> ServerCallContext:
        metadata = context.invocation_metadata() or ()
        resume = [str(v) for k, v in metadata if k.lower() == RESUME_HEADER]
        return ServerCallContext(
            state={
                "grpc_context": context,
                CALL: call_context(context),
                RESUME: resume_position(resume),
            }
        )


class _Handler(GrpcHandler):
    """The SDK's handler, answering agentd's own errors with agentd's rich status."""

    async def abort_context(
        self, error: A2AError, context: grpc.aio.ServicerContext[Any, Any]
    ) -> None:
        if isinstance(error, AgentdStatusError):
            await abort(context, error.error)
        await super().abort_context(error, context)


def add_a2a(
    server: grpc.aio.Server,
    engine: Engine,
    tasks: TaskService,
    registry: ToolRegistry,
    agents: Agents,
    addresses: Addresses,
    push: PushRpcs,
    *,
    auth: bool,
    organization: str,
) -> tuple[str, AgentdRequestHandler]:
    """Serve A2A on `server`: the service's name (for health and reflection) and the
    request handler (the JSON-RPC binding serves it too)."""
    cards = CardMaker(registry, agents, addresses, auth=auth, organization=organization)
    handler = AgentdRequestHandler(engine, tasks, cards, push)
    servicer = _Handler(handler, _Contexts())
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    return SERVICE_NAME, handler
