"""The server's lifecycle: start, drain, stop. `serve()` owns it; the parts come from
`server.builders`."""

from __future__ import annotations

import asyncio
import signal
from dataclasses import dataclass

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

from agent.catalog import Agents
from agent.engine import Engine
from agent.llm.encodings import Encodings
from agent.llm.roles import ModelRoles
from agent.memory.service import Conversations
from agentd.v1 import agent_service_pb2, agent_service_pb2_grpc
from audit.service import AuditLogs
from auth.authenticator import Authenticator
from auth.keys import new_key, roles_by_principal
from auth.throttle import FailureThrottle
from core import secrets, tracing
from core.metrics import TASKS_IN_FLIGHT
from server import heap, logs, reflection
from server.a2a import A2A, a2a_if_on
from server.builders import (
    build_agents,
    build_authenticator,
    build_conversations,
    build_registry,
    rate_limiters,
    server_options,
    start_engine,
    start_toolsets,
    store_settings,
)
from server.interceptors.audit import AuditInterceptor
from server.interceptors.auth import AnonymousInterceptor, AuthInterceptor
from server.interceptors.decoding import DecodingInterceptor
from server.interceptors.draining import DrainingInterceptor
from server.interceptors.metrics import MetricsInterceptor
from server.interceptors.rate_limit import RateLimitInterceptor
from server.interceptors.tracing import TracingInterceptor
from server.servicer import AgentServicer
from server.settings import Settings
from server.startup import StartupError, report_serving, start_metrics
from stores.api_keys.base import KeyStore
from stores.build import DurableStores, LiveStores, StoreSettings, build_live, open_durable
from stores.redis import shown
from stores.tasks.base import TaskStore
from tools.grant_admin import GrantAdmin
from tools.grants import Grant, new_grant_id
from tools.model import PermissionLevel
from tools.permissions import GrantPolicy
from tools.registry import ToolRegistry
from tools.toolsets.manager import Toolsets

log = structlog.get_logger(__name__)

SERVICE_NAME = agent_service_pb2.DESCRIPTOR.services_by_name["AgentService"].full_name


@dataclass
class AgentdServer:
    """A running server and what it needs to shut down cleanly."""

    server: grpc.aio.Server
    health: HealthServicer
    draining: DrainingInterceptor
    audit: AuditInterceptor
    settings: Settings
    port: int
    engine: Engine
    tasks: TaskStore
    live: LiveStores
    durable: DurableStores
    registry: ToolRegistry
    background: list[asyncio.Task[None]]
    toolsets: Toolsets | None = None
    a2a: A2A | None = None

    @classmethod
    async def start(
        cls,
        settings: Settings,
        *,
        registry: ToolRegistry | None = None,
        tasks: TaskStore | None = None,
        models: ModelRoles | None = None,
    ) -> AgentdServer:
        secrets.configure(settings.secret_patterns)
        where = store_settings(settings)
        live, durable = await _open_stores(where)
        authenticator = build_authenticator(settings, durable.api_keys)
        try:
            if registry is None:
                registry = build_registry(settings, durable.tool_calls)
        except ValueError as error:  # a tool setting that cannot be applied
            raise StartupError(str(error)) from None
        background = await _keep_grants_fresh(settings, registry, durable)
        toolsets = await start_toolsets(settings, registry, background)
        agents, files = build_agents(settings, durable.agents)
        if files is not None:
            background.append(asyncio.create_task(files.watch(), name="agentd-agent-files"))
        tasks = tasks if tasks is not None else live.tasks
        registry.use_idempotency_store(live.idempotency, settings.retention_seconds)
        registry.use_tool_cache(live.tool_cache)
        conversations = build_conversations(settings, durable, live, tasks)
        encodings = Encodings(settings.tokenizer_dir)
        await asyncio.to_thread(encodings.load)  # says once: exact counts, or estimates
        engine = start_engine(
            settings, models, registry, tasks, durable, live, agents, conversations, encodings
        )
        draining = DrainingInterceptor()
        audit = AuditInterceptor(durable.rpcs)
        interceptors = _interceptors(settings, draining, audit, authenticator, where, live)
        server = grpc.aio.server(interceptors=interceptors, options=server_options(settings))
        health, a2a = _add_services(
            server, settings, engine, registry, tasks, live, durable, agents, conversations
        )
        port = _listen(server, settings)
        await server.start()
        await report_serving(health, [SERVICE_NAME], port, a2a, authenticator)
        return cls(
            server,
            health,
            draining,
            audit,
            settings,
            port,
            engine,
            tasks,
            live,
            durable,
            registry,
            background,
            toolsets,
            a2a,
        )

    async def shutdown(self, grace: float | None = None) -> None:
        """Drain: NOT_SERVING, refuse new calls, let in-flight ones finish, stop."""
        grace = self.settings.grace_period_seconds if grace is None else grace
        await self.health.enter_graceful_shutdown()
        self.draining.draining = True
        log.info("draining", grace_period_seconds=grace)
        if self.settings.shutdown_delay_seconds:
            await asyncio.sleep(self.settings.shutdown_delay_seconds)
        # Tasks no stream is waiting on get the same grace as in-flight calls.
        await asyncio.gather(self.server.stop(grace), self.engine.drain(grace))
        if self.a2a is not None:
            await self.a2a.stop()
        await self.engine.close()
        for job in self.background:
            job.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        if self.toolsets is not None:  # after the drain: running tasks may still call tools
            await self.toolsets.close()
        await self.audit.flush()
        if self.tasks is not self.live.tasks:
            await self.tasks.close()
        await self.live.close()
        await self.durable.close()
        log.info("stopped")


async def _open_stores(where: StoreSettings) -> tuple[LiveStores, DurableStores]:
    """The live stores (Redis checked once) and the durable ones (migrated).
    StoreUnreachableError when Redis refuses agentd or the database cannot be opened;
    a Redis that does not answer yet is only said (calls answer UNAVAILABLE until it does)."""
    live = build_live(where)
    try:
        if live.redis is not None:
            unreachable = await live.redis.check()
            if unreachable:
                log.warning(
                    "Redis is out of reach; calls answer UNAVAILABLE until it is back",
                    redis=shown(live.redis.options.url),
                    error=unreachable,
                )
        return live, await open_durable(where)
    except BaseException:
        await live.close()
        raise


async def _keep_grants_fresh(
    settings: Settings, registry: ToolRegistry, durable: DurableStores
) -> list[asyncio.Task[None]]:
    """With a grant policy: load the grants now, and a background job that keeps them fresh."""
    background: list[asyncio.Task[None]] = []
    if isinstance(registry.policy, GrantPolicy):
        await registry.policy.refresh(durable.grants)
        background.append(
            asyncio.create_task(
                registry.policy.keep_fresh(durable.grants, settings.grants_refresh_seconds)
            )
        )
    return background


def _interceptors(
    settings: Settings,
    draining: DrainingInterceptor,
    audit: AuditInterceptor,
    authenticator: Authenticator | None,
    where: StoreSettings,
    live: LiveStores,
) -> list[grpc.aio.ServerInterceptor]:  # type: ignore[type-arg]
    """The server's interceptors, outermost first.

    Tracing, metrics and audit wrap auth so that refused calls are traced, counted and
    audited too; auth comes before rate limits (which need the principal) and before
    decoding (a refused call is never decoded).
    """
    interceptors: list[grpc.aio.ServerInterceptor] = [  # type: ignore[type-arg]
        draining,
        TracingInterceptor(),
        MetricsInterceptor(),
        audit,
    ]
    if authenticator is None:
        interceptors.append(AnonymousInterceptor(settings.anonymous_roles, settings.gateway_roles))
    else:
        rate = settings.failure_throttle_rate
        throttle = FailureThrottle(rate) if rate is not None else None
        interceptors.append(
            AuthInterceptor(
                authenticator, settings.auth_public_methods, throttle, settings.gateway_roles
            )
        )
    interceptors.append(RateLimitInterceptor(*rate_limiters(settings, where, live)))
    interceptors.append(DecodingInterceptor())
    return interceptors


def _add_services(
    server: grpc.aio.Server,
    settings: Settings,
    engine: Engine,
    registry: ToolRegistry,
    tasks: TaskStore,
    live: LiveStores,
    durable: DurableStores,
    agents: Agents,
    conversations: Conversations,
) -> tuple[HealthServicer, A2A | None]:
    """Register AgentService (and A2A when on), health and reflection on `server`."""
    a2a = a2a_if_on(server, settings, engine, tasks, conversations, live, registry, agents, durable)
    agent_service_pb2_grpc.add_AgentServiceServicer_to_server(
        AgentServicer(
            engine,
            registry,
            tasks,
            durable.history,
            AuditLogs(durable.audit_reader, engine.find, settings.auditor_roles),
            GrantAdmin(
                durable.grants,
                registry.policy if isinstance(registry.policy, GrantPolicy) else None,
                settings.grant_admin_roles,
                PermissionLevel[settings.grant_admin_max_level.upper()],
                held=_RolesOnKeys(durable.api_keys),
            ),
            agents,
            conversations,
            heartbeat_seconds=settings.heartbeat_seconds,
        ),
        server,
    )
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    names = [SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name]
    reflection.enable(server, names if a2a is None else [*names, a2a.service_name])
    return health, a2a


@dataclass(frozen=True, slots=True)
class _RolesOnKeys:
    """What a new grant's review counts principals as holding: their keys' roles."""

    keys: KeyStore

    async def __call__(self, tenant: str) -> dict[str, list[tuple[str, ...]]]:
        return roles_by_principal(await self.keys.list(), tenant)


def _listen(server: grpc.aio.Server, settings: Settings) -> int:
    """Bind the server's port (not yet serving); StartupError when the address is taken."""
    port = server.add_insecure_port(settings.address)
    if port == 0:
        raise StartupError(
            f"cannot listen on {settings.address} (AGENTD_ADDRESS): the address is in use "
            "or not available"
        )
    return port


async def _announce_auth(running: AgentdServer) -> None:
    """Say whether auth is on; on a fresh embedded database (one that never had a key),
    make a development key and its grant, once, unless AGENTD_DEVELOPMENT_KEY=false."""
    settings = running.settings
    if settings.auth == "off":
        log.warning(
            "authentication is OFF (AGENTD_AUTH=off): every caller is anonymous",
            roles=settings.anonymous_roles,
        )
        return
    keys = await running.durable.api_keys.list()
    if any(key.active for key in keys):
        log.info("authentication is on", public_methods=settings.auth_public_methods)
        return
    if keys:  # every key was revoked: an operator's decision, not a fresh database
        log.warning(
            "authentication is on and every API key is revoked: create one with "
            "`agentd keys create --tenant T --principal P`"
        )
        return
    if not settings.database_url.startswith("sqlite") or not settings.development_key:
        log.warning(
            "authentication is on and no API key exists yet: create one with "
            "`agentd keys create --tenant T --principal P`"
        )
        return
    key, plaintext = new_key("default", "developer", ("admin",))
    await running.durable.api_keys.add(key)
    grant = Grant(
        grant_id=new_grant_id(),
        tenant="default",
        subject="role:admin",
        tool="*",
        level=PermissionLevel.ADMIN,
        created_at=key.created_at,
        created_by="agentd:development-setup",
    )
    await running.durable.grants.add(grant)
    policy = running.registry.policy
    if isinstance(policy, GrantPolicy):
        await policy.refresh(running.durable.grants)
    print(
        "authentication is on. A development API key (tenant 'default', principal "
        "'developer', role 'admin', granted every tool) was created and is shown only "
        "now. Send it as "
        "'authorization: Bearer <key>' (grpcurl -H), or for the agentd CLI:\n"
        f"  export AGENTD_API_KEY={plaintext}",
        flush=True,
    )


async def serve(settings: Settings) -> None:
    """Run until SIGTERM or SIGINT, then drain and return."""
    logs.configure(settings.log_level, settings.log_format)
    exporting = tracing.configure()
    metrics = start_metrics(settings.metrics_address)  # first: a taken port fails fast
    try:
        running = await AgentdServer.start(settings)
    except BaseException:
        if metrics is not None:
            metrics.stop()
        raise
    TASKS_IN_FLIGHT.set_function(running.engine.running_count)
    host = settings.address.rsplit(":", 1)[0]
    log.info(
        "serving",
        address=f"{host}:{running.port}",
        workspace=str(settings.workspace_dir.resolve()),
        tool_permission=settings.tool_permission,
        llm=settings.llm_model if running.engine.configured else "not configured",
        task_store="redis" if settings.redis_url else "in-process",
        replica=running.engine.replica,
        metrics=f"http://{metrics.address}/metrics" if metrics else "off",
        traces_exported=exporting,
    )
    if not running.engine.configured:
        log.warning(
            "no language model configured: tools, health and tasks are served, "
            "Execute and Plan answer FAILED_PRECONDITION until these are set",
            settings=list(running.engine.missing_settings),
        )
    await _announce_auth(running)
    heap.settle()  # what startup loaded stays: out of the collector's way
    print(f"agentd listening on {host}:{running.port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await running.shutdown()
    if metrics is not None:
        metrics.stop()
