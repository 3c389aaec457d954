"""A2A push notifications: each config's updates POSTed in order, at least once.

The durable event log is the outbox: a config row holds how far its task's log was
delivered (`stores.push_configs`). Every replica runs a `PushDeliverer`; it claims due
configs (one holder at a time, for a lease it renews as it goes), reads each task's log
after the config's cursor, POSTs every A2A update (`server.convert.a2a.update_of`, the
same as a stream carries) and moves the cursor after each 2xx. A failed POST is retried
with exponential backoff and full jitter, for ever (until the config is deleted or the
task's log expires); a replica that dies stops renewing, and another takes the config
over once the lease has expired and resumes after the cursor: an update may arrive twice,
always with the same event id (`X-Agentd-Event-Id: <task id>:<sequence>`), never out of
order. URLs follow the destinations rules of `http_request` (AGENTD_HTTP_ALLOWED_NETWORKS),
when the config is made and again on every connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime

import httpcore
import structlog
from google.protobuf import json_format

from core.errors import TaskNotFoundError
from core.identity import new_trace_id
from core.metrics import A2A_PUSH_DELIVERIES
from records.audit import RpcRecord
from records.events import TaskEvent
from records.push_configs import PushConfig
from server.convert import a2a as convert
from server.delivery.loop import ClaimLoop, backoff
from server.delivery.posting import post
from stores.audit.base import RpcAuditSink
from stores.push_configs.base import PushConfigStore
from stores.tasks.base import TaskStore
from tools.builtin.addresses import IPNetwork

__all__ = ["AUDIT_METHOD", "PushDeliverer", "backoff"]

log = structlog.get_logger(__name__)

AUDIT_METHOD = "/lf.a2a.v1.A2AService/PushNotification"
"""The method name of push notifications' audit records (not an RPC of the service)."""
EVENT_ID_HEADER = "x-agentd-event-id"
TOKEN_HEADER = "x-a2a-notification-token"

_Key = tuple[str, str, str]


def _key(config: PushConfig) -> _Key:
    return (config.tenant, config.task_id, config.config_id)


class _ClaimLost(Exception):  # noqa: N818 - a signal, not a failure
    """The config was deleted, or another replica holds it now."""


class _Claims:
    """The configs as `ClaimLoop` claims them: a renewal moves nothing but keeps the cursor
    each held config's delivery reached."""

    def __init__(self, configs: PushConfigStore) -> None:
        self.configs = configs
        self.cursors: dict[_Key, int] = {}

    async def claim(
        self, replica: str, now: datetime, until: datetime, limit: int
    ) -> list[PushConfig]:
        claimed = await self.configs.claim(replica, now, until, limit)
        for config in claimed:
            self.cursors.setdefault(_key(config), config.delivered_through)
        return claimed

    async def renew(self, config: PushConfig, replica: str, until: datetime) -> bool:
        cursor = self.cursors.get(_key(config), config.delivered_through)
        return await self.configs.advance(config, replica, cursor, False, until)

    async def release(self, config: PushConfig, replica: str) -> None:
        await self.configs.release(config, replica)


class PushDeliverer:
    """Delivers the push notifications this replica holds."""

    def __init__(
        self,
        configs: PushConfigStore,
        tasks: TaskStore,
        replica: str,
        allowed: Sequence[IPNetwork],
        *,
        lease_seconds: float = 10.0,
        poll_seconds: float = 0.5,
        timeout_seconds: float = 10.0,
        retry_base_seconds: float = 0.2,
        retry_cap_seconds: float = 30.0,
        max_held: int = 64,
        audit: RpcAuditSink | None = None,
    ) -> None:
        self._audit = audit
        self._claims = _Claims(configs)
        self._configs = configs
        self._tasks = tasks
        self._replica = replica
        self._timeout = timeout_seconds
        self._retry = (retry_base_seconds, retry_cap_seconds)
        self._loop = ClaimLoop(
            self._claims,
            self._deliver,
            _key,
            replica,
            allowed,
            lease_seconds=lease_seconds,
            poll_seconds=poll_seconds,
            max_held=max_held,
            name="agentd-a2a-push",
        )

    async def run(self) -> None:
        """Claim and deliver until cancelled; on cancel, give the claims back."""
        await self._loop.run()

    async def _deliver(self, pool: httpcore.AsyncConnectionPool, config: PushConfig) -> None:
        """Send the config's task's updates after its cursor, in order, until the task's
        last event (the config is then finished) or the claim is lost; the loop renews
        the claim meanwhile (a task may be quiet for longer than the lease)."""
        key = _key(config)
        cursor = self._claims.cursors
        until = self._loop.until
        try:
            task = await self._tasks.get(config.tenant, config.task_id)
            events = self._tasks.read_events(config.tenant, config.task_id, cursor[key])
            async for event in events:
                update = convert.update_of(task, event)
                if update is not None:
                    await self._post_until_delivered(pool, config, event, update)
                cursor[key] = event.sequence
                if not await self._configs.advance(
                    config, self._replica, event.sequence, event.terminal, until()
                ):
                    return
        except _ClaimLost:
            return
        except TaskNotFoundError:  # the task and its log are gone: nothing more can be sent
            log.warning(
                "push notifications end: the task's events are gone", task_id=config.task_id
            )
            with contextlib.suppress(Exception):
                await self._configs.advance(config, self._replica, cursor[key], True, until())
        finally:
            cursor.pop(key, None)

    async def _post_until_delivered(
        self,
        pool: httpcore.AsyncConnectionPool,
        config: PushConfig,
        event: TaskEvent,
        update: convert.Update,
    ) -> None:
        body = json.dumps(json_format.MessageToDict(convert.stream_response(update))).encode()
        headers = [
            ("content-type", "application/json"),
            (EVENT_ID_HEADER, f"{config.task_id}:{event.sequence}"),
        ]
        if config.token:
            headers.append((TOKEN_HEADER, config.token))
        if config.auth_scheme:
            headers.append(("authorization", f"{config.auth_scheme} {config.auth_credentials}"))
        attempt = 0
        while True:
            started, clock = datetime.now(UTC), time.perf_counter()
            outcome = await post(pool, config.url, headers, body, self._timeout)
            A2A_PUSH_DELIVERIES.labels("delivered" if outcome is None else "failed").inc()
            await self._record(config, event, body, outcome, started, clock)
            log.info(
                "push notification",
                task_id=config.task_id,
                config_id=config.config_id,
                sequence=event.sequence,
                outcome=outcome or "delivered",
                attempt=attempt + 1,
            )
            if outcome is None:
                return
            attempt += 1
            await asyncio.sleep(backoff(attempt, *self._retry))
            held = await self._configs.get(config.tenant, config.task_id, config.config_id)
            if held is None:
                raise _ClaimLost  # deleted meanwhile: nothing more to send

    async def _record(
        self,
        config: PushConfig,
        event: TaskEvent,
        body: bytes,
        outcome: str | None,
        started: datetime,
        clock: float,
    ) -> None:
        """One RPC audit record per POST (method `.../PushNotification`, for the principal
        that made the config; UNAVAILABLE when it was not taken)."""
        if self._audit is None:
            return
        record = RpcRecord(
            time=started,
            principal_id=config.created_by or "agentd",
            tenant=config.tenant,
            method=AUDIT_METHOD,
            code="OK" if outcome is None else "UNAVAILABLE",
            duration_seconds=time.perf_counter() - clock,
            trace_id=event.trace_id or new_trace_id(),
            request_digest=hashlib.sha256(body).hexdigest(),
            task_id=config.task_id,
        )
        try:
            await self._audit.write(record)
        except Exception:
            log.error("could not write the push notification's audit record", exc_info=True)
