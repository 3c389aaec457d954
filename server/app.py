"""The server's lifecycle: start, drain, stop. `serve()` owns it; the parts come from
`server.wiring.builders`."""

from __future__ import annotations

import asyncio
import signal
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import grpc
import structlog
from grpc_health.v1._async import HealthServicer

from agent.conversations.service import Conversations
from agent.definitions.catalog import Agents
from agent.engine import Engine
from agent.llm.roles import ModelRoles
from agent.llm.window.encodings import Encodings
from core import tracing
from core.keyring import KeyRing
from core.metrics import TASKS_IN_FLIGHT
from records.keys import new_key
from records.tools.grants import Grant, new_grant_id
from records.tools.model import PermissionLevel
from server import heap, logs
from server.interceptors.audit import AuditInterceptor
from server.interceptors.draining import DrainingInterceptor
from server.listening import StartupError
from server.services.memory import MemoryFeature
from server.services.recorded.eval_promotion import StoredEvalRuns
from server.settings import Settings
from server.wiring.agents import start_agents
from server.wiring.builders import (
    build_authenticator,
    build_conversations,
    build_registry,
    start_engine,
    start_toolsets,
)
from server.wiring.fronts.a2a import A2A
from server.wiring.fronts.http import Fronts, HttpServing
from server.wiring.guardrails import ServerGuardrails
from server.wiring.knowledge import open_memory
from server.wiring.models import Spending, build_models, build_spending, model_factory
from server.wiring.own import Evals, OwnServices
from server.wiring.providers import configure_secrets
from server.wiring.schedules import Schedules
from server.wiring.services import SERVICE_NAME as SERVICE_NAME
from server.wiring.services import (
    Webhooks,
    add_services,
    grpc_server,
    start_serving,
)
from server.wiring.startup import serving_jobs, start_metrics, unless_stopped
from server.wiring.stores import Callers, seal_at_start, store_settings
from stores.build import DurableStores, LiveStores, StoreSettings, build_live, open_durable
from stores.evals.sql import SqlEvalStore
from stores.redis_options import shown
from stores.tasks.base import TaskStore
from tools.permissions import GrantPolicy
from tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent.definitions.promotion import PassedEvalRuns
    from tools.toolsets.manager import Toolsets

log = structlog.get_logger(__name__)


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
    memory: MemoryFeature | None = None
    fronts: Fronts = field(default_factory=Fronts)

    @property
    def a2a(self) -> A2A | None:
        return self.fronts.a2a

    @property
    def http(self) -> HttpServing | None:
        return self.fronts.http

    @classmethod
    async def start(
        cls,
        settings: Settings,
        *,
        registry: ToolRegistry | None = None,
        tasks: TaskStore | None = None,
        models: ModelRoles | None = None,
        passed_runs: PassedEvalRuns | None = None,
    ) -> AgentdServer:
        configure_secrets(settings)
        where = store_settings(settings)
        live, durable = await _open_stores(where, settings.key_ring())
        authenticator = build_authenticator(settings, durable.api_keys)
        registry, background = await _tools(settings, registry, live, durable)
        toolsets = await start_toolsets(settings, registry, background)
        runs = passed_runs or StoredEvalRuns(SqlEvalStore(durable.database))
        agents = start_agents(settings, durable.agents, background, runs)
        tasks = tasks if tasks is not None else live.tasks
        conversations = build_conversations(settings, durable, live, tasks)
        encodings = Encodings(settings.tokenizer_dir)
        models = models or build_models(settings)
        spending = build_spending(settings, durable, live, models)
        stores = (tasks, durable, live, agents, conversations, encodings, background, spending)
        engine, memory, webhooks, own = await _engine(settings, models, registry, *stores)
        callers = Callers.of(settings, authenticator, where, live)  # gRPC's and HTTP's
        server, draining, audit = grpc_server(settings, callers, durable)
        health, fronts = add_services(
            server,
            settings,
            engine,
            registry,
            tasks,
            live,
            durable,
            agents,
            conversations,
            memory,
            spending,
            webhooks.service,
            own,
        )
        port = await start_serving(server, settings, health, fronts, callers)
        background += serving_jobs(settings, engine, durable, webhooks, own, encodings, models)
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
            memory,
            fronts,
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
        stopping = self.fronts.stop_listening()  # the HTTP address drains with gRPC
        await asyncio.gather(self.server.stop(grace), self.engine.drain(grace), stopping)
        await self.fronts.stop()
        await self.engine.close()
        for job in self.background:
            job.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        if self.toolsets is not None:  # after the drain: running tasks may still call tools
            await self.toolsets.close()
        await self.audit.flush()
        if self.memory is not None:
            await self.memory.close()
        if self.tasks is not self.live.tasks:
            await self.tasks.close()
        await self.live.close()
        await self.durable.close()
        log.info("stopped")


async def _engine(
    settings: Settings,
    models: ModelRoles | None,
    registry: ToolRegistry,
    tasks: TaskStore,
    durable: DurableStores,
    live: LiveStores,
    agents: Agents,
    conversations: Conversations,
    encodings: Encodings,
    background: list[asyncio.Task[None]],
    spending: Spending,
) -> tuple[Engine, MemoryFeature, Webhooks, OwnServices]:
    """The engine, with long-term memory, the server's guardrails (whose clients are
    held open by a background job, closed when the server stops its jobs), its meter, the
    webhooks, whose outbox it tells of status changes, and the evaluation runs and
    schedules over it."""
    webhooks = Webhooks.build(settings, durable, tasks)
    memory = await open_memory(settings, durable, registry, models=models)
    guardrails = ServerGuardrails(settings, models, model_factory(models))
    background.append(asyncio.create_task(guardrails.held(), name="agentd-guardrails"))
    engine = await start_engine(
        settings,
        models,
        registry,
        tasks,
        durable,
        live,
        agents,
        conversations,
        encodings,
        recall=memory.recall,
        extract=memory.after_turn,
        guardrails=guardrails.policy,
        meter=spending.meter,
        notices=[webhooks.writer],
    )
    evals = Evals.build(settings, engine, durable, live, agents, models)
    return (
        engine,
        memory,
        webhooks,
        OwnServices(evals, Schedules.build(settings, engine, durable, agents)),
    )


async def _tools(
    settings: Settings, registry: ToolRegistry | None, live: LiveStores, durable: DurableStores
) -> tuple[ToolRegistry, list[asyncio.Task[None]]]:
    """The tool registry (the settings' tools unless one is given), keeping its idempotency
    keys and cached results in the live stores; with a grant policy, the grants loaded now
    and a background job that keeps them fresh. StartupError for a tool setting that
    cannot be applied."""
    if registry is None:
        try:
            registry = build_registry(settings, durable.tool_calls, durable.artifacts)
        except ValueError as error:
            raise StartupError(str(error)) from None
    registry.use_idempotency_store(live.idempotency, settings.retention_seconds)
    registry.use_tool_cache(live.tool_cache)
    background: list[asyncio.Task[None]] = []
    if isinstance(registry.policy, GrantPolicy):
        await registry.policy.refresh(durable.grants)
        background.append(
            asyncio.create_task(
                registry.policy.keep_fresh(durable.grants, settings.grants_refresh_seconds)
            )
        )
    return registry, background


async def _open_stores(where: StoreSettings, ring: KeyRing) -> tuple[LiveStores, DurableStores]:
    """The live stores (Redis checked once) and the durable ones (migrated, their secrets
    kept in plain text sealed with `ring`'s key: `seal_at_start`).
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
        durable = await open_durable(where)
        try:
            await seal_at_start(durable.database, ring)
        except BaseException:
            await durable.close()
            raise
        return live, durable
    except BaseException:
        await live.close()
        raise


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
    if any(key.active for key in keys):  # a restart: the key printed once is not shown again
        log.info(
            "authentication is on; API keys exist, so no development key was made. Lost "
            "yours? Create another with `agentd keys create --tenant default --principal "
            "developer --role admin` (on this database)",
            public_methods=settings.auth_public_methods,
        )
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
    stop = asyncio.Event()  # first: a SIGTERM as soon as health says SERVING drains too
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    exporting = tracing.configure()
    metrics = start_metrics(settings.metrics_address)  # first: a taken port fails fast
    try:
        running = await unless_stopped(AgentdServer.start(settings), stop)
    except BaseException:
        if metrics is not None:
            metrics.stop()
        raise
    if running is None:  # stopped before it served: nothing to drain
        if metrics is not None:
            metrics.stop()
        return
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
    await stop.wait()
    await running.shutdown()
    if metrics is not None:
        metrics.stop()
