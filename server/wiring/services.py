"""What the gRPC server serves (AgentService, MemoryService, EvalService, A2A when on,
health, reflection) and beside it (`server.wiring.fronts`), the interceptors every call
passes through, outermost first, health reported SERVING once it serves, and the webhooks'
place in it (the outbox writer the engine tells, the service the RPCs call, the
deliverer every replica runs); evaluation runs and schedules are `server.wiring.own`'s."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

from agent.conversations.service import Conversations
from agent.definitions.catalog import Agents
from agent.engine import Engine
from agent.feed import TaskFeed
from agent.running.artifacts import TaskArtifacts
from agent.scheduling.inbox import Inbox
from agentd.v1 import (
    agent_service_pb2,
    evals_pb2,
    memory_pb2,
    memory_pb2_grpc,
    schedules_pb2,
)
from audit.service import AuditLogs
from core.errors import TaskNotFoundError
from core.roles import Action
from records.keys import roles_by_principal
from records.tasks import Task
from records.tools.model import PermissionLevel
from server import reflection
from server.interceptors.audit import AuditInterceptor
from server.interceptors.auth import AnonymousInterceptor, AuthInterceptor
from server.interceptors.composed import compose
from server.interceptors.decoding import DecodingInterceptor
from server.interceptors.draining import DrainingInterceptor
from server.interceptors.metrics import MetricsInterceptor
from server.interceptors.rate_limit import RateLimitInterceptor
from server.interceptors.tracing import TracingInterceptor
from server.listening import StartupError, unbindable
from server.rpcs.memories import MemoryServicer
from server.servicer import agent_servicer
from server.services.action_history import ActionHistory
from server.services.memory import MemoryFeature
from server.services.recorded.traces import TraceService
from server.services.tasks import TaskService
from server.services.webhook_delivery import WebhookDeliverer
from server.services.webhook_outbox import WebhookOutboxWriter
from server.services.webhooks import WebhookService
from server.settings import Settings
from server.wiring.builders import server_options
from server.wiring.fronts.a2a import a2a_if_on
from server.wiring.fronts.http import DoorParts, Fronts, HttpServing
from server.wiring.fronts.triggers import Triggers
from server.wiring.generic_handlers import GenericOnly
from server.wiring.models import Spending, usage_service
from server.wiring.own import OwnServices
from server.wiring.role_table import role_table
from server.wiring.stores import Callers
from stores.api_keys.base import KeyStore
from stores.audit.base import RpcAuditSink
from stores.build import DurableStores, LiveStores, build_traces
from stores.tasks.base import TaskStore
from tools.grant_admin import GrantAdmin
from tools.permissions import GrantPolicy
from tools.registry import ToolRegistry

SERVICE_NAME = agent_service_pb2.DESCRIPTOR.services_by_name["AgentService"].full_name
MEMORY_SERVICE = memory_pb2.DESCRIPTOR.services_by_name["MemoryService"].full_name
HEALTH_SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
EVAL_SERVICE = evals_pb2.DESCRIPTOR.services_by_name["EvalService"].full_name
TRIGGER_SERVICE = schedules_pb2.DESCRIPTOR.services_by_name["TriggerService"].full_name
SCHEDULE_SERVICE = schedules_pb2.DESCRIPTOR.services_by_name["ScheduleService"].full_name
OWN_SERVICES = (EVAL_SERVICE, SCHEDULE_SERVICE, TRIGGER_SERVICE)
"""The services beside AgentService and MemoryService that every server serves."""
REFLECTED = (SERVICE_NAME, *OWN_SERVICES, MEMORY_SERVICE, HEALTH_SERVICE)
"""The services reflection names (A2A's too when it is on)."""


def interceptor_chain(
    settings: Settings,
    draining: DrainingInterceptor,
    audit: AuditInterceptor,
    callers: Callers,
) -> list[grpc.aio.ServerInterceptor]:  # type: ignore[type-arg]
    """The server's interceptors, outermost first.

    Tracing, metrics and audit wrap auth so that refused calls are traced, counted and
    audited too; auth comes before rate limits (which need the principal) and before
    decoding (a refused call is never decoded). Those from tracing to decoding run as one
    grpc interceptor (`interceptors.composed`), each concern still its own.
    """
    interceptors: list[grpc.aio.ServerInterceptor] = [  # type: ignore[type-arg]
        draining,
        TracingInterceptor(),
        MetricsInterceptor(),
        audit,
    ]
    gateway_roles = role_table(settings).roles(Action.ACT_FOR_END_USERS)
    authenticator = callers.authenticator
    if authenticator is None:
        interceptors.append(AnonymousInterceptor(settings.anonymous_roles, gateway_roles))
    else:
        public, throttle = settings.auth_public_methods, callers.throttle
        interceptors.append(AuthInterceptor(authenticator, public, throttle, gateway_roles))
    interceptors.append(RateLimitInterceptor(callers.per_principal, callers.per_tenant))
    interceptors.append(DecodingInterceptor())
    return compose(interceptors)


def grpc_server(
    settings: Settings, callers: Callers, durable: DurableStores
) -> tuple[grpc.aio.Server, DrainingInterceptor, AuditInterceptor]:
    """The gRPC server with its interceptors (not serving yet), and those of them the
    server drains and flushes when it stops."""
    draining = DrainingInterceptor()
    audit = AuditInterceptor(durable.rpcs)
    interceptors = interceptor_chain(settings, draining, audit, callers)
    server = grpc.aio.server(interceptors=interceptors, options=server_options(settings))
    return server, draining, audit


def add_services(
    server: grpc.aio.Server,
    settings: Settings,
    engine: Engine,
    registry: ToolRegistry,
    tasks: TaskStore,
    live: LiveStores,
    durable: DurableStores,
    agents: Agents,
    conversations: Conversations,
    memory: MemoryFeature,
    spending: Spending,
    webhooks: WebhookService,
    own: OwnServices,
) -> tuple[HealthServicer, Fronts]:
    """Register every gRPC service (A2A when on), health and reflection on `server`, each
    through its generic handler; build the HTTP address's doors."""
    server = GenericOnly(server)
    roles = role_table(settings)
    kept = engine.traces.store if engine.traces is not None else build_traces(durable.database)
    traces = TraceService(kept, roles)
    service = TaskService(
        engine,
        TaskFeed(tasks, durable.history),
        conversations,
        live.idempotency,
        key_ttl_seconds=settings.task_timeout_seconds + settings.retention_seconds,
    )
    a2a = a2a_if_on(server, settings, engine, service, tasks, registry, agents, durable)
    triggers = Triggers.build(settings, engine, durable).registered(server)
    parts = DoorParts(settings, engine, service, conversations, agents, registry, a2a, triggers)
    fronts = Fronts(a2a, HttpServing.build(parts, durable))
    agent_servicer(
        engine,
        registry,
        service,
        AuditLogs(durable.audit_reader, engine.find, roles),
        GrantAdmin(
            durable.grants,
            registry.policy if isinstance(registry.policy, GrantPolicy) else None,
            roles,
            PermissionLevel[settings.grant_admin_max_level.upper()],
            held=_RolesOnKeys(durable.api_keys),
        ),
        agents,
        conversations,
        TaskArtifacts(durable.artifacts, engine.find, settings.max_message_bytes),
        usage_service(settings, spending, durable, roles),
        Inbox(durable.inbox.waits, roles),
        webhooks,
        ActionHistory(durable.inbox.history, engine.find, roles),
        traces=traces,
        heartbeat_seconds=settings.heartbeat_seconds,
    ).register(server)
    memory_pb2_grpc.add_MemoryServiceServicer_to_server(MemoryServicer(memory, traces), server)
    own.register(server)
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    reflection.enable(server, [*REFLECTED, *([a2a.service_name] if a2a is not None else [])])
    return health, fronts


@dataclass(frozen=True, slots=True)
class _RolesOnKeys:
    """What a new grant's review counts principals as holding: their keys' roles."""

    keys: KeyStore

    async def __call__(self, tenant: str) -> dict[str, list[tuple[str, ...]]]:
        return roles_by_principal(await self.keys.list(), tenant)


async def report_serving(
    health: HealthServicer,
    services: Sequence[str],
    port: int,
    fronts: Fronts,
    callers: Callers,
) -> None:
    """What the server serves beside gRPC started (`Fronts.start`: the HTTP address
    listening), then health SERVING for the server, `services`, EvalService and
    TriggerService (served by every server): a server reported ready serves every door it
    has."""
    await fronts.start(port, health, callers)
    await health.set("", health_pb2.HealthCheckResponse.SERVING)
    for name in (*services, *OWN_SERVICES):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)


def _listen(server: grpc.aio.Server, settings: Settings) -> int:
    """Bind the server's port (not yet serving); StartupError when the address is taken.
    grpcio once answered 0 for an address it could not bind; grpcio 1.85 raises
    RuntimeError (whose message says nothing of why): both become the same one line."""
    try:
        port = server.add_insecure_port(settings.address)
    except RuntimeError:
        port = 0
    if port == 0:
        raise StartupError(
            f"cannot listen on {settings.address} (AGENTD_ADDRESS): "
            f"{unbindable(settings.address)}; choose another address (port 0: any free port)"
        )
    return port


async def start_serving(
    server: grpc.aio.Server,
    settings: Settings,
    health: HealthServicer,
    fronts: Fronts,
    callers: Callers,
) -> int:
    """Bind, start, report SERVING: the port. StartupError when an address cannot be
    bound; when that is the HTTP address, the gRPC server already started is stopped."""
    port = _listen(server, settings)
    await server.start()
    try:
        await report_serving(health, [SERVICE_NAME], port, fronts, callers)
    except BaseException:
        await server.stop(None)
        raise
    return port


@dataclass
class Webhooks:
    """Webhooks on one server."""

    settings: Settings
    durable: DurableStores
    writer: WebhookOutboxWriter
    service: WebhookService
    find: Callable[[str, str], Awaitable[Task | None]] | None = None
    """The live store's task of a tenant (None: gone)."""
    deliverer: WebhookDeliverer | None = None

    @classmethod
    def build(cls, settings: Settings, durable: DurableStores, tasks: TaskStore) -> Webhooks:
        """The writer and the service (the deliverer comes with `start`)."""

        async def find(tenant: str, task_id: str) -> Task | None:
            try:
                return await tasks.get(tenant, task_id)
            except TaskNotFoundError:
                return None

        stores = durable.webhooks
        writer = WebhookOutboxWriter(
            stores.store, stores.outbox, find, settings.webhook_refresh_seconds
        )
        service = WebhookService(
            stores.store,
            settings.key_ring(),
            role_table(settings),
            settings.allowed_networks(),
            writer,
        )
        return cls(settings, durable, writer, service, find)

    def start(self, replica: str, audit: RpcAuditSink | None = None) -> asyncio.Task[None]:
        """Deliver from now on (as `replica`): the job, which gives its claims back when it
        is cancelled (another replica goes on)."""
        settings, stores = self.settings, self.durable.webhooks
        self.deliverer = WebhookDeliverer(
            stores.store,
            stores.outbox,
            settings.key_ring(),
            replica,
            settings.allowed_networks(),
            retention_seconds=settings.webhook_retention_seconds,
            lease_seconds=settings.webhook_lease_seconds,
            timeout_seconds=settings.webhook_timeout_seconds,
            retry_base_seconds=settings.webhook_retry_base_seconds,
            retry_cap_seconds=settings.webhook_retry_cap_seconds,
            sweep_seconds=settings.webhook_sweep_seconds,
            audit=audit,
            find=self.find,
        )
        self.writer.wrote = self.deliverer.nudge  # an event written here: claimed at once
        return asyncio.create_task(self.deliverer.run(), name="agentd-webhooks")
