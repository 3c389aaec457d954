"""The server's lifecycle: build, start, drain, stop. `serve()` owns it."""

from __future__ import annotations

import asyncio
import signal
from dataclasses import dataclass
from typing import Any

import grpc
import redis.asyncio as redis
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from sqlalchemy.ext.asyncio import AsyncEngine

from agent.approvals import ApprovalBox, InMemoryApprovalBox, RedisApprovalBox
from agent.cancel_bus import CancelBus, LocalCancelBus, RedisCancelBus
from agent.engine import LLM_SETTINGS, Engine
from agent.leases import Leases, LocalLeases
from agent.limits import EngineConfig
from agent.llm.openai import OpenAIModel
from agent.llm.roles import ModelRoles
from agent.memory_task_store import InMemoryTaskStore
from agent.redis_leases import RedisLeases
from agent.redis_task_store import RedisTaskStore
from agent.sql_checkpoints import SqlCheckpointStore
from agent.sql_task_history import SqlTaskHistory
from agent.task_store import TaskStore
from agentd.v1 import agent_service_pb2, agent_service_pb2_grpc
from audit.service import AuditLogs
from audit.sql import SqlAuditReader, SqlRpcAuditLog
from auth.authenticator import Authenticator
from auth.keys import KeyStore, new_key
from auth.sql_keys import SqlKeyStore
from auth.tokens import TokenRules, TokenVerifier
from core import secrets, tracing
from core.idempotency import IdempotencyStore, InMemoryIdempotencyStore, RedisIdempotencyStore
from core.metrics import REGISTRY, TASKS_IN_FLIGHT
from core.rate_limits import LocalRateLimiter, RateLimiter, parse_limits
from core.redis_rate_limits import RedisRateLimiter
from db.engine import create_engine, migrate
from db.group_commit import GroupCommit
from server import logs, reflection
from server.interceptors.audit import AuditInterceptor
from server.interceptors.auth import AuthInterceptor
from server.interceptors.decoding import DecodingInterceptor
from server.interceptors.draining import DrainingInterceptor
from server.interceptors.metrics import MetricsInterceptor
from server.interceptors.rate_limit import RateLimitInterceptor
from server.interceptors.tracing import TracingInterceptor
from server.servicer import AgentServicer
from server.settings import Settings
from tools.audit import AuditSink
from tools.builtin import HttpLimits, builtin_tools
from tools.grant_admin import GrantAdmin
from tools.grants import Grant, GrantStore, new_grant_id
from tools.model import PermissionLevel
from tools.permissions import GrantPolicy
from tools.registry import ToolRegistry
from tools.sql_audit_log import SqlAuditLog
from tools.sql_grants import SqlGrantStore

log = structlog.get_logger(__name__)

SERVICE_NAME = agent_service_pb2.DESCRIPTOR.services_by_name["AgentService"].full_name


def build_registry(settings: Settings, audit: AuditSink) -> ToolRegistry:
    tools = builtin_tools(
        settings.workspace_dir,
        HttpLimits(
            timeout_seconds=settings.http_timeout_seconds,
            max_response_bytes=settings.http_max_response_bytes,
            max_redirects=settings.http_max_redirects,
            allowed_networks=tuple(settings.allowed_networks()),
        ),
        settings.max_file_bytes,
    )
    return ToolRegistry(
        tools,
        policy=GrantPolicy(
            default=settings.permission_level, approval_tools=settings.approval_tools
        ),
        audit=audit,
        max_argument_bytes=settings.max_tool_argument_bytes,
    )


@dataclass(frozen=True)
class LiveStores:
    """What running tasks share between processes (or keep in this one)."""

    tasks: TaskStore
    keys: IdempotencyStore
    cancellations: CancelBus
    leases: Leases
    approvals: ApprovalBox


def build_live_stores(settings: Settings) -> LiveStores:
    """Task state, event logs, idempotency keys, cancellations and leases: on one Redis
    client when AGENTD_REDIS_URL is set (the task store closes it), else in-process."""
    if settings.redis_url:
        client = redis.Redis.from_url(settings.redis_url)
        prefix = settings.redis_prefix
        return LiveStores(
            RedisTaskStore(client, prefix=prefix, retention_seconds=settings.retention_seconds),
            RedisIdempotencyStore(client, prefix),
            RedisCancelBus(client, prefix),
            RedisLeases(
                client, prefix, ttl_seconds=settings.lease_seconds, replica=settings.replica_id
            ),
            RedisApprovalBox(client, prefix),
        )
    return LiveStores(
        InMemoryTaskStore(),
        InMemoryIdempotencyStore(),
        LocalCancelBus(),
        LocalLeases(),
        InMemoryApprovalBox(),
    )


def build_rate_limiters(settings: Settings) -> tuple[RateLimiter, RateLimiter]:
    """Per principal and per tenant: in Redis when configured (one rate across the
    replicas), else in this process."""
    principal, tenant = (
        parse_limits(settings.rate_limits),
        parse_limits(settings.tenant_rate_limits),
    )
    if settings.redis_url and (principal or tenant):
        client = redis.Redis.from_url(settings.redis_url)
        return (
            RedisRateLimiter(client, principal, settings.redis_prefix, "principal"),
            RedisRateLimiter(client, tenant, settings.redis_prefix, "tenant"),
        )
    return LocalRateLimiter(principal), LocalRateLimiter(tenant)


def build_authenticator(settings: Settings, keys: KeyStore) -> Authenticator | None:
    """The authenticator, or None with AGENTD_AUTH=off. Bad JWT settings fail here."""
    if settings.auth == "off":
        return None
    tokens = None
    if settings.jwt_issuer or settings.jwt_audience or settings.jwt_hs256_secret:
        secret = settings.jwt_hs256_secret
        tokens = TokenVerifier(
            TokenRules(
                issuer=settings.jwt_issuer or "",
                audience=settings.jwt_audience or "",
                hs256_secret=secret.get_secret_value() if secret else None,
                jwks_file=settings.jwt_jwks_file,
                tenant_claim=settings.jwt_tenant_claim,
                roles_claim=settings.jwt_roles_claim,
            )
        )
    elif settings.jwt_jwks_file is not None:
        raise ValueError("AGENTD_JWT_JWKS_FILE needs AGENTD_JWT_ISSUER and AGENTD_JWT_AUDIENCE")
    return Authenticator(keys, tokens, cache_seconds=settings.auth_cache_seconds)


def build_models(settings: Settings) -> ModelRoles | None:
    """The models for each role, or None when no model is configured."""
    if not settings.llm_model:
        return None
    import openai

    client = openai.AsyncOpenAI(
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key or "unused",
        timeout=settings.llm_timeout_seconds,
        max_retries=0,
    )

    def model(name: str | None) -> OpenAIModel | None:
        if not name:
            return None
        return OpenAIModel(
            name,
            client=client,
            temperature=settings.llm_temperature,
            max_tokens=settings.llm_max_tokens,
            max_attempts=settings.llm_max_attempts,
        )

    default = model(settings.llm_model)
    assert default is not None
    return ModelRoles(
        default=default,
        planner=model(settings.llm_planner_model),
        executor=model(settings.llm_executor_model),
        critic=model(settings.llm_critic_model),
        synthesizer=model(settings.llm_synthesizer_model),
    )


def engine_config(settings: Settings) -> EngineConfig:
    return EngineConfig(
        max_concurrent_tool_calls=settings.max_concurrent_tool_calls,
        max_running_tasks=settings.max_running_tasks,
        max_queued_tasks=settings.max_queued_tasks,
        step_timeout_seconds=settings.step_timeout_seconds,
        task_timeout_seconds=settings.task_timeout_seconds,
        token_budget=settings.token_budget,
        critic_policy=settings.critic_policy,
        critic_every_n=settings.critic_every_n,
        max_corrections=settings.max_corrections,
        tool_calling=settings.llm_tool_calling,
    )


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
    database: AsyncEngine
    keys: KeyStore
    grants: GrantStore
    audit_rows: GroupCommit
    registry: ToolRegistry
    background: list[asyncio.Task[None]]

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
        await migrate(settings.database_url)
        database = create_engine(settings.database_url)
        keys = SqlKeyStore(database)
        authenticator = build_authenticator(settings, keys)
        # One writer for both audit logs: concurrent calls share their commits.
        audit_rows = GroupCommit(database)
        registry = registry or build_registry(settings, SqlAuditLog(database, audit_rows))
        grants = SqlGrantStore(database)
        background: list[asyncio.Task[None]] = []
        if isinstance(registry.policy, GrantPolicy):
            await registry.policy.refresh(grants)
            background.append(
                asyncio.create_task(
                    registry.policy.keep_fresh(grants, settings.grants_refresh_seconds)
                )
            )
        live = build_live_stores(settings)
        tasks = tasks or live.tasks
        history = SqlTaskHistory(database)
        registry.use_idempotency_store(live.keys, settings.retention_seconds)
        engine = Engine(
            models or build_models(settings),
            registry,
            tasks,
            engine_config(settings),
            history=history,
            keys=live.keys,
            key_ttl_seconds=settings.task_timeout_seconds + settings.retention_seconds,
            cancel_bus=live.cancellations,
            leases=live.leases,
            checkpoints=SqlCheckpointStore(database),
            takeover_interval_seconds=settings.takeover_interval_seconds,
            approvals=live.approvals,
        )
        engine.listen_for_cancellations()
        engine.supervise()
        draining = DrainingInterceptor()
        audit = AuditInterceptor(SqlRpcAuditLog(database, audit_rows))
        # Outermost first. Tracing, metrics and audit wrap auth so that refused calls are
        # traced, counted and audited too; auth comes before rate limits (which need the
        # principal) and before decoding (a refused call is never decoded).
        interceptors: list[grpc.aio.ServerInterceptor] = [  # type: ignore[type-arg]
            draining,
            TracingInterceptor(),
            MetricsInterceptor(),
            audit,
        ]
        if authenticator is not None:
            interceptors.append(AuthInterceptor(authenticator, settings.auth_public_methods))
        interceptors.append(RateLimitInterceptor(*build_rate_limiters(settings)))
        interceptors.append(DecodingInterceptor())
        server = grpc.aio.server(
            interceptors=interceptors,
            options=[
                ("grpc.max_receive_message_length", settings.max_message_bytes),
                ("grpc.max_send_message_length", settings.max_message_bytes),
                ("grpc.so_reuseport", 0),
            ],
        )
        agent_service_pb2_grpc.add_AgentServiceServicer_to_server(
            AgentServicer(
                engine,
                registry,
                tasks,
                history,
                AuditLogs(SqlAuditReader(database), engine.find, settings.auditor_roles),
                GrantAdmin(
                    grants,
                    registry.policy if isinstance(registry.policy, GrantPolicy) else None,
                    settings.grant_admin_roles,
                ),
            ),
            server,
        )
        health = HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health, server)
        reflection.enable(
            server, [SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name]
        )
        port = server.add_insecure_port(settings.address)
        if port == 0:
            raise OSError(f"cannot listen on {settings.address}")
        await server.start()
        await health.set("", health_pb2.HealthCheckResponse.SERVING)
        await health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        return cls(
            server,
            health,
            draining,
            audit,
            settings,
            port,
            engine,
            tasks,
            database,
            keys,
            grants,
            audit_rows,
            registry,
            background,
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
        await self.engine.close()
        for job in self.background:
            job.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        await self.audit.flush()
        await self.audit_rows.close()
        await self.tasks.close()
        await self.database.dispose()
        log.info("stopped")


async def _announce_auth(running: AgentdServer) -> None:
    """Say whether auth is on; on a fresh embedded database, make a development key."""
    settings = running.settings
    if settings.auth == "off":
        log.warning("authentication is OFF (AGENTD_AUTH=off): every caller is anonymous")
        return
    if any(key.active for key in await running.keys.list()):
        log.info("authentication is on", public_methods=settings.auth_public_methods)
        return
    if not settings.database_url.startswith("sqlite"):
        log.warning(
            "authentication is on and no API key exists yet: create one with "
            "`agentd keys create --tenant T --principal P`"
        )
        return
    key, plaintext = new_key("default", "developer", ("admin",))
    await running.keys.add(key)
    grant = Grant(
        grant_id=new_grant_id(),
        tenant="default",
        subject="role:admin",
        tool="*",
        level=PermissionLevel.ADMIN,
        created_at=key.created_at,
        created_by="agentd:development-setup",
    )
    await running.grants.add(grant)
    policy = running.registry.policy
    if isinstance(policy, GrantPolicy):
        await policy.refresh(running.grants)
    print(
        "authentication is on. A development API key (tenant 'default', principal "
        "'developer', role 'admin', granted every tool) was created and is shown only "
        "now. Send it as "
        "'authorization: Bearer <key>' (grpcurl -H), or for the agentd CLI:\n"
        f"  export AGENTD_API_KEY={plaintext}",
        flush=True,
    )


@dataclass
class MetricsEndpoint:
    """The Prometheus endpoint, served from a thread of its own."""

    address: str
    http: Any

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def start_metrics(address: str, running: AgentdServer) -> MetricsEndpoint | None:
    """Serve /metrics on `address` (host:port; port 0 picks one), or nothing when empty."""
    if not address:
        return None
    from prometheus_client import start_http_server

    host, _, port = address.rpartition(":")
    TASKS_IN_FLIGHT.set_function(running.engine.running_count)
    try:
        http, _thread = start_http_server(int(port), addr=host.strip("[]"), registry=REGISTRY)
    except OSError as error:
        raise OSError(
            f"cannot serve metrics on {address} (AGENTD_METRICS_ADDRESS): {error}"
        ) from error
    return MetricsEndpoint(f"{host}:{http.server_port}", http)


async def serve(settings: Settings) -> None:
    """Run until SIGTERM or SIGINT, then drain and return."""
    logs.configure(settings.log_level, settings.log_format)
    exporting = tracing.configure()
    running = await AgentdServer.start(settings)
    metrics = start_metrics(settings.metrics_address, running)
    host = settings.address.rsplit(":", 1)[0]
    log.info(
        "serving",
        address=f"{host}:{running.port}",
        workspace=str(settings.workspace_dir.resolve()),
        tool_permission=settings.tool_permission,
        llm=settings.llm_model or "not configured",
        task_store="redis" if settings.redis_url else "in-process",
        replica=running.engine.replica,
        metrics=f"http://{metrics.address}/metrics" if metrics else "off",
        traces_exported=exporting,
    )
    if not running.engine.configured:
        log.warning(
            "no language model configured: tools, health and tasks are served, "
            "Execute and Plan answer FAILED_PRECONDITION until these are set",
            settings=list(LLM_SETTINGS),
        )
    await _announce_auth(running)
    print(f"agentd listening on {host}:{running.port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await running.shutdown()
    if metrics is not None:
        metrics.stop()
