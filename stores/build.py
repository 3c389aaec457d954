"""Every store, built from one description of where state lives.

Two groups, opened and closed together:

- **live** state of running tasks (task state and event logs, idempotency keys,
  cancellations and wakes, leases, the running task of each conversation) and
  cached tool results: in Redis when a Redis URL is given, so that replicas share
  it, else in this process;
- **durable** records (task history, checkpoints, API keys, grants, the audit logs,
  agents, conversations, artifacts, the waits of parked tasks, the usage ledger and
  budgets, webhooks and their outbox): in SQL, SQLite by
  agents, conversations, artifacts, the waits of parked tasks and the inbox's history,
  the usage ledger and budgets): in SQL, SQLite by
  default or PostgreSQL, migrated to the latest schema on open.

The server turns its settings into a `StoreSettings`; nothing here reads the
environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stores.action_history.sql import SqlActionHistory
from stores.agents.sql import SqlAgentStore
from stores.api_keys.sql import SqlKeyStore
from stores.artifacts.sql import SqlArtifactStore
from stores.audit.sql import SqlAuditLog, SqlAuditReader, SqlGuardrailAudit, SqlRpcAuditLog
from stores.budgets.base import BudgetMeter
from stores.budgets.memory import InMemoryBudgetMeter
from stores.budgets.sql import SqlBudgetStore
from stores.cancellations.base import CancelBus
from stores.cancellations.memory import InMemoryCancelBus
from stores.checkpoints.sql import SqlCheckpointStore
from stores.conversation_slots.base import ConversationSlots
from stores.conversation_slots.memory import InMemoryConversationSlots
from stores.conversations.sql import SqlConversationStore
from stores.grants.sql import SqlGrantStore
from stores.history.sql import SqlTaskHistory
from stores.idempotency.base import IdempotencyStore
from stores.idempotency.memory import InMemoryIdempotencyStore
from stores.leases.base import Leases
from stores.leases.memory import InMemoryLeases
from stores.rate_limits.base import Rate, RateLimiter
from stores.rate_limits.memory import InMemoryRateLimiter
from stores.redis_options import RedisOptions
from stores.sql.database import Database
from stores.sql.engine import PoolOptions, migrate
from stores.steers.base import SteerBus
from stores.steers.memory import InMemorySteerBus
from stores.tasks.base import TaskStore
from stores.tasks.memory import InMemoryTaskStore
from stores.tool_cache.base import ToolCache
from stores.tool_cache.memory import InMemoryToolCache
from stores.traces.base import TraceStore
from stores.traces.memory import InMemoryTraceStore
from stores.traces.sql import SqlTraceStore
from stores.usage.sql import SqlUsageLedger
from stores.usage.stats_sql import SqlStatsReader
from stores.waits.sql import SqlWaitStore
from stores.wakes.base import WakeBus
from stores.wakes.memory import InMemoryWakeBus
from stores.webhooks.sql import SqlWebhookStore
from stores.webhooks.sql_outbox import SqlWebhookOutbox

if TYPE_CHECKING:  # Redis's client is imported only when Redis is configured (start-up time)
    from stores.redis import RedisConnections


@dataclass(frozen=True)
class StoreSettings:
    """Where state lives and how long it is kept."""

    database_url: str
    pool: PoolOptions
    redis: RedisOptions | None = None
    """Live state in Redis (shared by replicas); None keeps it in this process."""
    redis_prefix: str = "agentd:"
    retention_seconds: int = 3600
    """How long a finished task's state and events stay readable."""
    lease_seconds: float = 10.0
    replica_id: str | None = None


@dataclass(frozen=True)
class LiveStores:
    """What running tasks share between processes (or keep in this one)."""

    tasks: TaskStore
    idempotency: IdempotencyStore
    cancellations: CancelBus
    leases: Leases
    wakes: WakeBus
    """Wakes of parked tasks, told to every replica."""
    tool_cache: ToolCache
    conversation_slots: ConversationSlots
    """Which task runs in each conversation, and which wait."""
    redis: RedisConnections | None = None
    """The process's Redis connections, when the stores are on Redis (closed last)."""
    steers: SteerBus = field(default_factory=InMemorySteerBus)
    """Steers of tasks, told to every replica."""
    budget_meter: BudgetMeter = field(default_factory=InMemoryBudgetMeter)
    """The counters of budgets' windows, shared by the replicas."""

    async def close(self) -> None:
        await self.tasks.close()
        if self.redis is not None:
            await self.redis.close()


@dataclass(frozen=True)
class UsageStores:
    """Money and numbers, on the durable stores' database."""

    ledger: SqlUsageLedger
    """The usage ledger: one row per model call."""
    budgets: SqlBudgetStore
    """Budgets' definitions (their counters are live: `LiveStores.budget_meter`)."""
    stats: SqlStatsReader
    """Statistics of tasks, tool calls and model calls."""


@dataclass(frozen=True)
class WebhookStores:
    """Webhooks, on the durable stores' database."""

    store: SqlWebhookStore
    """The endpoints (their secrets sealed) and their dead letters."""
    outbox: SqlWebhookOutbox
    """The outbox of their events, and the streams it is delivered in."""


@dataclass(frozen=True)
class InboxStores:
    """What parked tasks wait for, and what became of their waits for a person."""

    waits: SqlWaitStore
    """What parked tasks wait for (shared by the replicas on this database)."""
    history: SqlActionHistory
    """The inbox's history: what became of each wait for a person."""


@dataclass(frozen=True)
class DurableStores:
    """The SQL records, all on one database and its one writer."""

    database: Database
    history: SqlTaskHistory
    checkpoints: SqlCheckpointStore
    api_keys: SqlKeyStore
    grants: SqlGrantStore
    tool_calls: SqlAuditLog
    rpcs: SqlRpcAuditLog
    audit_reader: SqlAuditReader
    agents: SqlAgentStore
    conversations: SqlConversationStore
    artifacts: SqlArtifactStore
    inbox: InboxStores
    """Parked tasks' waits and the inbox's history."""
    guardrails: SqlGuardrailAudit
    """The audit log of guardrail decisions (read through `audit_reader`)."""
    usage: UsageStores
    """The usage ledger, budgets' definitions and the statistics reader."""
    webhooks: WebhookStores
    """Webhooks and their outbox."""

    async def close(self) -> None:
        await self.database.close()


def build_live(settings: StoreSettings) -> LiveStores:
    """Task state, event logs, idempotency keys, cancellations and wakes, leases and
    cached tool results: on the process's Redis connections when configured, else
    in-process."""
    if settings.redis is None:
        return LiveStores(
            InMemoryTaskStore(retention_seconds=settings.retention_seconds),
            InMemoryIdempotencyStore(),
            InMemoryCancelBus(),
            InMemoryLeases(),
            InMemoryWakeBus(),
            InMemoryToolCache(),
            InMemoryConversationSlots(),
        )
    return _on_redis(settings, settings.redis)


def _on_redis(settings: StoreSettings, options: RedisOptions) -> LiveStores:
    from stores.budgets.redis import RedisBudgetMeter
    from stores.cancellations.redis import RedisCancelBus
    from stores.conversation_slots.redis import RedisConversationSlots
    from stores.idempotency.redis import RedisIdempotencyStore
    from stores.leases.redis import RedisLeases
    from stores.redis import RedisConnections
    from stores.steers.redis import RedisSteerBus
    from stores.tasks.redis import RedisTaskStore
    from stores.tool_cache.redis import RedisToolCache
    from stores.wakes.redis import RedisWakeBus

    connections = RedisConnections(options)
    calls, prefix = connections.calls, settings.redis_prefix
    return LiveStores(
        RedisTaskStore(
            calls,
            prefix=prefix,
            retention_seconds=settings.retention_seconds,
            subscriptions=connections.subscriptions,
        ),
        RedisIdempotencyStore(calls, prefix),
        RedisCancelBus(calls, prefix, connections.subscriptions),
        RedisLeases(
            connections.background,
            prefix,
            ttl_seconds=settings.lease_seconds,
            replica=settings.replica_id,
        ),
        RedisWakeBus(calls, prefix, connections.subscriptions),
        RedisToolCache(calls, prefix),
        RedisConversationSlots(calls, prefix),
        connections,
        RedisSteerBus(calls, prefix, connections.subscriptions),
        RedisBudgetMeter(calls, prefix),
    )


async def open_durable(settings: StoreSettings) -> DurableStores:
    """Migrate the database to the latest schema, then open every SQL store on it."""
    await migrate(settings.database_url)
    database = Database.open(settings.database_url, pool=settings.pool)
    return DurableStores(
        database,
        SqlTaskHistory(database),
        SqlCheckpointStore(database),
        SqlKeyStore(database),
        SqlGrantStore(database),
        SqlAuditLog(database),
        SqlRpcAuditLog(database),
        SqlAuditReader(database),
        SqlAgentStore(database),
        SqlConversationStore(database),
        SqlArtifactStore(database),
        InboxStores(SqlWaitStore(database), SqlActionHistory(database)),
        SqlGuardrailAudit(database),
        UsageStores(SqlUsageLedger(database), SqlBudgetStore(database), SqlStatsReader(database)),
        WebhookStores(SqlWebhookStore(database), SqlWebhookOutbox(database)),
    )


def build_traces(database: Database) -> TraceStore:
    """Where tasks' durable traces are kept: with the task history on SQLite or
    PostgreSQL, else in this process."""
    if database.dialect in ("sqlite", "postgresql"):
        return SqlTraceStore(database)
    return InMemoryTraceStore()


def build_rate_limiters(
    settings: StoreSettings,
    live: LiveStores,
    principal: Mapping[str, Rate],
    tenant: Mapping[str, Rate],
) -> tuple[RateLimiter, RateLimiter]:
    """Per principal and per tenant: in Redis when the live stores are (one rate across
    the replicas, on the process's call pool), else in this process."""
    if live.redis is not None and (principal or tenant):
        from stores.rate_limits.redis import RedisRateLimiter

        client, prefix = live.redis.calls, settings.redis_prefix
        return (
            RedisRateLimiter(client, principal, prefix, "principal"),
            RedisRateLimiter(client, tenant, prefix, "tenant"),
        )
    return InMemoryRateLimiter(principal), InMemoryRateLimiter(tenant)
