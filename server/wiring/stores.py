"""Where the server keeps its state, and the rate limiters it enforces (`Callers`: with the
authenticator, for every door), from its settings:
for the start (`server.app`), the interceptor chain (`server.wiring.services`) and the
HTTP address's guard (`server.wiring.fronts.http`), which must not import the builders of
the server's parts. And the stores that keep secrets sealed with the server's keys
(`core.keyring`), in one place: what `agentd keys reencrypt` walks, and what start-up
seals when it finds secrets stored in plain text before there was a key."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import structlog

from agent.recording.traces import DEFAULT_ARGUMENTS_KEY, Traces
from auth.authenticator import Authenticator
from auth.throttle import FailureThrottle
from core.keyring import KeyRing, SealedValues
from server.settings import Settings
from stores.build import LiveStores, StoreSettings, build_rate_limiters, build_traces
from stores.push_configs.sql import SqlPushConfigStore
from stores.rate_limits.base import RateLimiter, parse_limits
from stores.redis_options import RedisOptions
from stores.retention.sql import SqlActionHistoryEntries, SqlArtifactVersions, SqlTaskRecords
from stores.retention.sweeper import RetentionSweeper, Rule
from stores.schedules.sql import SqlScheduleStore
from stores.sql.database import Database
from stores.sql.engine import PoolOptions
from stores.traces.sql import SqlTraceStore
from stores.triggers.sql import SqlTriggerStore
from stores.usage.sql import SqlUsageLedger
from stores.webhooks.sql import SqlWebhookStore

log = structlog.get_logger(__name__)


def store_settings(settings: Settings) -> StoreSettings:
    """Where this server keeps its state: SQL always, Redis when AGENTD_REDIS_URL is set."""
    redis = None
    if settings.redis_url:
        redis = RedisOptions(
            settings.redis_url,
            max_connections=settings.redis_max_connections,
            pool_timeout_seconds=settings.redis_pool_timeout_seconds,
            cancelled_reply_seconds=settings.redis_cancelled_reply_seconds,
            client_name=f"agentd:{settings.replica_id or 'replica'}",
        )
    return StoreSettings(
        settings.database_url,
        PoolOptions(
            settings.database_pool_size,
            settings.database_max_overflow,
            settings.database_pool_timeout_seconds,
        ),
        redis=redis,
        redis_prefix=settings.redis_prefix,
        retention_seconds=settings.retention_seconds,
        lease_seconds=settings.lease_seconds,
        replica_id=settings.replica_id,
    )


def rate_limiters(
    settings: Settings, stores: StoreSettings, live: LiveStores
) -> tuple[RateLimiter, RateLimiter]:
    """Per principal (AGENTD_RATE_LIMITS) and per tenant (AGENTD_TENANT_RATE_LIMITS)."""
    return build_rate_limiters(
        stores, live, parse_limits(settings.rate_limits), parse_limits(settings.tenant_rate_limits)
    )


@dataclass(frozen=True, slots=True)
class Callers:
    """Who may call and how often, the same on every door: the server's authenticator
    (None: auth is off) and its rate limiters, built once, so that a caller's buckets are
    one on the gRPC port and the HTTP address even in the process."""

    authenticator: Authenticator | None
    per_principal: RateLimiter
    per_tenant: RateLimiter
    throttle: FailureThrottle | None = None
    """Refused credentials per client address (AGENTD_AUTH_FAILURE_LIMIT), with auth on."""

    @classmethod
    def of(
        cls,
        settings: Settings,
        authenticator: Authenticator | None,
        stores: StoreSettings,
        live: LiveStores,
    ) -> Callers:
        rate = settings.failure_throttle_rate if authenticator is not None else None
        throttle = FailureThrottle(rate) if rate is not None else None
        return cls(authenticator, *rate_limiters(settings, stores, live), throttle)


def retention_sweeper(settings: Settings, database: Database) -> RetentionSweeper | None:
    """The sweep of finished tasks' records and the inbox's history, artifact versions and
    usage rows, tasks' traces, schedules' runs and triggers' deliveries past their retention
    (AGENTD_HISTORY_RETENTION_SECONDS for the first two, AGENTD_ARTIFACT_RETENTION_SECONDS,
    AGENTD_USAGE_RETENTION_SECONDS, AGENTD_TRACE_RETENTION_SECONDS,
    AGENTD_SCHEDULE_RUN_RETENTION_SECONDS, AGENTD_TRIGGER_DELIVERY_RETENTION_SECONDS);
    None when all are kept for ever (0)."""
    sweeper = RetentionSweeper(
        [
            Rule(SqlTaskRecords(database), settings.history_retention_seconds),
            Rule(SqlActionHistoryEntries(database), settings.history_retention_seconds),
            Rule(SqlArtifactVersions(database), settings.artifact_retention_seconds),
            Rule(SqlUsageLedger(database), settings.usage_retention_seconds),
            Rule(SqlTraceStore(database), settings.trace_retention_seconds),
            Rule(SqlScheduleStore(database), settings.schedule_run_retention_seconds),
            Rule(SqlTriggerStore(database), settings.trigger_delivery_retention_seconds),
        ],
        interval_seconds=settings.retention_sweep_interval_seconds,
        batch=settings.retention_sweep_batch,
    )
    return sweeper if sweeper.rules else None


def trace_part(settings: Settings, database: Database) -> Traces | None:
    """Where runs' durable traces are kept, with the key of their tool calls' argument
    hashes (derived from AGENTD_KEYS: every replica the same; else the default) and the
    caps; None when AGENTD_TRACES is off."""
    if not settings.traces:
        return None
    ring = settings.key_ring()
    key = ring.derive("trace-arguments") if ring.present else DEFAULT_ARGUMENTS_KEY
    return Traces(
        build_traces(database),
        key,
        max_record_bytes=settings.trace_max_record_bytes,
        max_task_bytes=settings.trace_max_bytes_per_task,
    )


def start_retention(settings: Settings, database: Database) -> list[asyncio.Task[None]]:
    """The retention sweep as a background job of the server, if it has one to run."""
    sweeper = retention_sweeper(settings, database)
    if sweeper is None:
        return []
    return [asyncio.create_task(sweeper.run(), name="agentd-retention")]


def sealed_stores(database: Database, ring: KeyRing) -> dict[str, SealedValues]:
    """Every store that keeps sealed values, by what it keeps (a store that keeps a secret
    adds itself here, and `agentd keys reencrypt` moves its values to the current key)."""
    return {
        "push notification credentials": SqlPushConfigStore(database, ring),
        "webhook signing secrets": SqlWebhookStore(database),
    }


async def seal_at_start(database: Database, ring: KeyRing) -> None:
    """With a key: seal the push notifications' tokens and credentials still kept in plain
    text (said with a count; safe when replicas start together: a row is updated only
    while it holds what was read). Without one: warn when there are any."""
    push = SqlPushConfigStore(database, ring)
    if ring.present:
        count = await push.seal_plain(ring)
        if count:
            log.info(
                "sealed push notification credentials kept in plain text",
                count=count,
                key_id=ring.current_id,
            )
        return
    plain = await push.plain_count()
    if plain:
        log.warning(
            "push notification credentials are kept in plain text: set AGENTD_KEYS "
            "(docs/keys.md) and they are sealed at the next start",
            count=plain,
        )
