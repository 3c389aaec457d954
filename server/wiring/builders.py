"""Building the service's parts from its settings: one function per part."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import structlog

from agent.conversations.busy import BusyGate, stale_after
from agent.conversations.engine_hooks import TaskMemory
from agent.conversations.service import Conversations
from agent.definitions.catalog import Agents
from agent.engine import Engine
from agent.inputs.keeping import InputParts
from agent.limits import Capacity, EngineConfig, GuardrailPolicy, PlanPolicy, ToolLimits, WaitPolicy
from agent.llm.roles import ModelRoles
from agent.llm.window.encodings import Encodings
from agent.notices import AllNotices, Notices
from agent.parts import EngineParts, Replicas
from agent.running.run import TaskRun
from agent.scheduling.inbox import InboxHistory
from agent.spending.calls import Metering
from agent.teams.delegation import TeamLimits
from auth.authenticator import Authenticator
from records.conversations.policy import MemoryPolicy
from records.tasks import Task
from records.tools.model import Tool
from server.settings import Settings
from server.wiring.artifact_limits import artifact_limits, input_limits
from server.wiring.fronts.a2a import LazyRemoteAgents
from server.wiring.model_limits import (
    configured_models,
    fit_policy,
    model_catalog,
    warn_unknown_models,
)
from server.wiring.models import build_models, model_factory
from server.wiring.role_table import role_table
from server.wiring.stores import trace_part
from stores.api_keys.base import KeyStore
from stores.artifacts.base import ArtifactStore
from stores.audit.base import AuditSink
from stores.build import DurableStores, LiveStores
from stores.tasks.base import TaskStore
from tools.builtin import HttpLimits, builtin_tools
from tools.builtin.artifacts import READ_ARTIFACT
from tools.permissions import GrantPolicy
from tools.registry import ToolRegistry
from tools.retries import RetryPolicy

if TYPE_CHECKING:  # what serving does not need before health: imported where it is used
    from tools.toolsets.manager import Toolsets

log = structlog.get_logger(__name__)

TASK_SCOPED_TOOLS = frozenset({READ_ARTIFACT})
"""Read-only tools whose results depend on the calling task (its tree's artifacts): never
cached, since the cache of tool results is per tenant."""


def build_registry(
    settings: Settings, audit: AuditSink, artifacts: ArtifactStore | None = None
) -> ToolRegistry:
    tools = builtin_tools(
        settings.workspace_dir,
        HttpLimits(
            timeout_seconds=settings.http_timeout_seconds,
            max_response_bytes=settings.http_max_response_bytes,
            max_redirects=settings.http_max_redirects,
            allowed_networks=tuple(settings.allowed_networks()),
        ),
        settings.max_file_bytes,
        workspace_quota=(settings.workspace_max_bytes, settings.workspace_max_files),
        artifacts=artifacts,
        artifact_limits=artifact_limits(settings),
    )
    return ToolRegistry(
        with_cache_times(tools, settings.tool_cache_ttls),
        policy=GrantPolicy(
            default=settings.permission_level,
            approval_tools=settings.approval_tools,
            approval_rule=settings.default_approval_rule,
        ),
        audit=audit,
        max_argument_bytes=settings.max_tool_argument_bytes,
        retry=RetryPolicy(max_attempts=settings.tool_max_attempts),
    )


def build_toolsets(settings: Settings, registry: ToolRegistry) -> Toolsets | None:
    """The toolsets of AGENTD_TOOLSETS_FILE over the registry's tools (not started yet), or
    None without the setting. Toolsets may not take the built-in tools' names."""
    if settings.toolsets_file is None:
        return None
    from tools.mcp.connection import ConnectionLimits
    from tools.toolsets.manager import Toolsets

    limits = ConnectionLimits(
        max_message_bytes=settings.toolsets_max_result_bytes,
        restart_initial_seconds=settings.toolsets_restart_initial_seconds,
        restart_max_seconds=settings.toolsets_restart_max_seconds,
        connect_seconds=settings.toolsets_connect_seconds,
        ping_seconds=settings.toolsets_ping_seconds,
    )
    reserved = [tool.spec.name for tool in registry.catalog.ordered() if not tool.spec.toolset]
    return Toolsets(settings.toolsets_file, registry.catalog, limits, reserved)


def with_cache_times(tools: list[Tool], ttls: Mapping[str, float]) -> list[Tool]:
    """The tools, with the cache time AGENTD_TOOL_CACHE_SECONDS gives each; ValueError
    (naming the setting) for a tool that is not there or whose results may not be cached."""
    by_name = {tool.spec.name: tool for tool in tools}
    cacheable = sorted(
        name
        for name, tool in by_name.items()
        if tool.spec.cacheable and name not in TASK_SCOPED_TOOLS
    )
    for name, seconds in ttls.items():
        tool = by_name.get(name)
        if name in TASK_SCOPED_TOOLS:
            raise ValueError(
                f"AGENTD_TOOL_CACHE_SECONDS: {name!r} cannot be cached: its results depend "
                "on the task that calls it (cached results are shared by a tenant's tasks)"
            )
        if tool is None or not tool.spec.cacheable:
            why = "there is no such tool" if tool is None else "it is not read-only and idempotent"
            raise ValueError(
                f"AGENTD_TOOL_CACHE_SECONDS: {name!r} cannot be cached: {why} "
                f"(cacheable tools: {', '.join(cacheable)})"
            )
        tool.spec = replace(tool.spec, cache_seconds=seconds)
    return tools


def build_authenticator(settings: Settings, keys: KeyStore) -> Authenticator | None:
    """The authenticator, or None with AGENTD_AUTH=off. Bad JWT settings fail here."""
    if settings.auth == "off":
        return None
    tokens = None
    if settings.jwt_issuer or settings.jwt_audience or settings.jwt_hs256_secret:
        from auth.tokens import TokenRules, TokenVerifier  # PyJWT: only with JWT settings

        secret = settings.jwt_hs256_secret
        tokens = TokenVerifier(
            TokenRules(
                issuer=settings.jwt_issuer or "",
                audience=settings.jwt_audience or "",
                hs256_secret=secret.get_secret_value() if secret else None,
                jwks_file=settings.jwt_jwks_file,
                tenant_claim=settings.jwt_tenant_claim,
                roles_claim=settings.jwt_roles_claim,
                max_lifetime_seconds=settings.jwt_max_lifetime_seconds,
            )
        )
    elif settings.jwt_jwks_file is not None:
        raise ValueError("AGENTD_JWT_JWKS_FILE needs AGENTD_JWT_ISSUER and AGENTD_JWT_AUDIENCE")
    return Authenticator(keys, tokens, cache_seconds=settings.auth_cache_seconds)


def engine_config(settings: Settings, guardrails: GuardrailPolicy | None = None) -> EngineConfig:
    return EngineConfig(
        roles=role_table(settings),
        url_placeholder_min_chars=settings.url_placeholder_min_chars,
        delta_flush_seconds=settings.delta_flush_ms / 1000,
        delta_max_chars=settings.delta_max_chars,
        step_timeout_seconds=settings.step_timeout_seconds,
        task_timeout_seconds=settings.task_timeout_seconds,
        token_budget=settings.token_budget,
        tool_calling=settings.llm_tool_calling,
        catalog=model_catalog(settings),
        fitting=fit_policy(settings),
        tools=ToolLimits(
            max_concurrent_tool_calls=settings.max_concurrent_tool_calls,
            max_tool_calls_per_turn=settings.max_tool_calls_per_turn,
            max_failed_tool_calls=settings.max_failed_tool_calls,
            tool_progress_seconds=settings.tool_progress_ms / 1000,
            resume_window_seconds=settings.resume_window_seconds,
            replay_read_only_tools=tuple(settings.replay_read_only_tools),
        ),
        plan=PlanPolicy(
            critic_policy=settings.critic_policy,
            critic_every_n=settings.critic_every_n,
            max_corrections=settings.max_corrections,
            step_policy=settings.step_policy,
        ),
        waits=WaitPolicy(
            max_wait_seconds=settings.max_wait_seconds, wait_actions=settings.wait_actions
        ),
        capacity=Capacity(
            max_running_tasks=settings.max_running_tasks,
            max_queued_tasks=settings.max_queued_tasks,
            tenant_queue_share=settings.tenant_queue_share,
        ),
        guardrails=guardrails or GuardrailPolicy(),
    )


def memory_defaults(settings: Settings) -> MemoryPolicy:
    """The memory of a conversation's tasks when their agent says nothing else."""
    return MemoryPolicy(
        budget_tokens=settings.memory_budget_tokens,
        max_messages=settings.memory_max_messages,
        tool_calls=settings.memory_tool_calls,
        tool_result_tokens=settings.memory_tool_result_tokens,
        compaction=settings.memory_compaction,
        summary_tokens=settings.memory_summary_tokens,
    )


def task_memory(
    settings: Settings,
    conversations: Conversations,
    tasks: TaskStore,
    encodings: Encodings,
    models: ModelRoles | None,
    recall: Callable[[TaskRun], Awaitable[None]] | None = None,
    extract: Callable[[Task, TaskRun | None], None] | None = None,
) -> TaskMemory:
    """What the engine keeps of conversations: their turns in tasks' prompts (within the
    settings' memory, in the tokens of the executor's model), and long-term memories recalled
    and proposed when `recall` and `extract` are given."""
    return TaskMemory(
        conversations,
        tasks,
        encodings,
        memory_defaults(settings),
        models.for_role("executor").name if models is not None else "",
        recall=recall,
        extract=extract,
    )


def server_options(settings: Settings) -> list[tuple[str, int]]:
    """gRPC server options: message sizes, and a keepalive policy gateways can live with.

    Clients may ping every `keepalive_min_ping_seconds` or more, with or without calls
    in flight (a grpc-go client pinging every 10 s behind a load balancer is common);
    the server pings idle connections every `keepalive_seconds` to find dead clients.
    """
    ms = 1000
    return [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", settings.max_message_bytes),
        ("grpc.so_reuseport", 0),
        ("grpc.keepalive_permit_without_calls", 1),
        (
            "grpc.http2.min_recv_ping_interval_without_data_ms",
            int(settings.keepalive_min_ping_seconds * ms),
        ),
        (
            "grpc.http2.min_ping_interval_without_data_ms",
            int(settings.keepalive_min_ping_seconds * ms),
        ),
        ("grpc.http2.max_ping_strikes", 2),
        ("grpc.keepalive_time_ms", int(settings.keepalive_seconds * ms)),
        ("grpc.keepalive_timeout_ms", 20 * ms),
        ("grpc.http2.max_pings_without_data", 0),
    ]


async def start_toolsets(
    settings: Settings, registry: ToolRegistry, background: list[asyncio.Task[None]]
) -> Toolsets | None:
    """The toolsets of AGENTD_TOOLSETS_FILE, started (each MCP server had its first try),
    and a background job that reads the file again when it changes."""
    toolsets = build_toolsets(settings, registry)
    if toolsets is not None:
        await toolsets.start(settings.toolsets_start_seconds)
        watch = toolsets.watch(settings.toolsets_reload_seconds)
        background.append(asyncio.create_task(watch, name="agentd-toolsets"))
    return toolsets


async def start_engine(
    settings: Settings,
    models: ModelRoles | None,
    registry: ToolRegistry,
    tasks: TaskStore,
    durable: DurableStores,
    live: LiveStores,
    agents: Agents,
    conversations: Conversations,
    encodings: Encodings,
    *,
    recall: Callable[[TaskRun], Awaitable[None]] | None = None,
    extract: Callable[[Task, TaskRun | None], None] | None = None,
    guardrails: GuardrailPolicy | None = None,
    meter: Metering | None = None,
    notices: Sequence[Notices] = (),
) -> Engine:
    """The engine, listening for cancellations, its tasks recovered (those lost with the
    last process end, before the waking pass) and supervised; `recall` and `extract` are
    long-term memory's (`server.wiring.knowledge`), `meter` meters model calls, `notices`
    are told of status changes and waits' steps (the webhooks' outbox)."""
    models = models or build_models(settings)
    engine = Engine(
        models,
        registry,
        EngineParts(
            tasks,
            history=durable.history,
            replicas=replicas(settings, live),
            checkpoints=durable.checkpoints,
            waits=durable.inbox.waits,
            agents=agents,
            model_factory=model_factory(models),
            memory=task_memory(settings, conversations, tasks, encodings, models, recall, extract),
            encodings=encodings,
            missing_settings=settings.missing_llm_settings(),
            teams=TeamLimits(
                max_depth=settings.max_delegation_depth,
                max_children=settings.max_children_per_task,
                max_parallel=settings.max_parallel_delegations,
            ),
            guardrail_audit=durable.guardrails,
            meter=meter,
            notices=build_notices(durable, notices),
            traces=trace_part(settings, durable.database),
        ),
        engine_config(settings, guardrails),
    )
    follow = settings.a2a_remote_follow_seconds
    engine.call_remote_agents(LazyRemoteAgents(settings.allowed_networks(), follow))
    engine.keep_files(InputParts(durable.artifacts, input_limits(settings)))
    engine.listen_for_cancellations()
    await engine.recover()
    engine.supervise()
    if engine.configured:
        warn_unknown_models(engine.config.catalog, configured_models(settings))
    return engine


def replicas(settings: Settings, live: LiveStores) -> Replicas:
    """What the engine shares with the other replicas: leases, cancellations, wakes,
    steers and idempotency keys, in the live stores."""
    return Replicas(
        leases=live.leases,
        cancel_bus=live.cancellations,
        wake_bus=live.wakes,
        steer_bus=live.steers,
        takeover_interval_seconds=settings.takeover_interval_seconds,
        idempotency=live.idempotency,
        key_ttl_seconds=settings.task_timeout_seconds + settings.retention_seconds,
    )


def build_notices(durable: DurableStores, others: Sequence[Notices] = ()) -> AllNotices:
    """Who is told of tasks' status changes and of the steps of their waits for a person
    (`agent.notices`), in order: the inbox's history, then `others` (the webhooks'
    outbox)."""
    return AllNotices([InboxHistory(durable.inbox.history), *others])


def build_conversations(
    settings: Settings, durable: DurableStores, live: LiveStores, tasks: TaskStore
) -> Conversations:
    """The conversations' store and their busy gate (one task at a time, across replicas)."""
    stale = stale_after(settings.lease_seconds, settings.takeover_interval_seconds)
    gate = BusyGate(
        live.conversation_slots,
        tasks,
        stale_seconds=stale,
        max_waiting=settings.conversation_max_waiting,
    )
    return Conversations(
        durable.conversations,
        gate,
        role_table(settings),
        max_turns=settings.conversation_max_turns,
    )
