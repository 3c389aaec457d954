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
import functools
import hashlib
import json
import random
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

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
from stores.audit.base import RpcAuditSink
from stores.push_configs.base import PushConfigStore
from stores.tasks.base import TaskStore
from tools.builtin.addresses import IPNetwork
from tools.builtin.http import GuardedBackend, timeouts

log = structlog.get_logger(__name__)

AUDIT_METHOD = "/lf.a2a.v1.A2AService/PushNotification"
"""The method name of push notifications' audit records (not an RPC of the service)."""
EVENT_ID_HEADER = "x-agentd-event-id"
TOKEN_HEADER = "x-a2a-notification-token"


def backoff(attempt: int, base: float, cap: float) -> float:
    """Seconds before retry `attempt` (1, 2, ...): full jitter over base * 2^attempt."""
    return random.uniform(0, min(cap, base * 2 ** min(attempt, 20)))


class _ClaimLost(Exception):  # noqa: N818 - a signal, not a failure
    """The config was deleted, or another replica holds it now."""


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
        self._configs = configs
        self._tasks = tasks
        self._replica = replica
        self._allowed = allowed
        self._lease = lease_seconds
        self._poll = poll_seconds
        self._timeout = timeout_seconds
        self._retry = (retry_base_seconds, retry_cap_seconds)
        self._max_held = max_held
        self._held: dict[tuple[str, str, str], asyncio.Task[None]] = {}

    def _until(self) -> datetime:
        return datetime.now(UTC) + timedelta(seconds=self._lease)

    async def run(self) -> None:
        """Claim and deliver until cancelled; on cancel, give the claims back."""
        async with httpcore.AsyncConnectionPool(
            network_backend=GuardedBackend(self._allowed), max_connections=16
        ) as pool:
            try:
                while True:
                    await self._claim_more(pool)
                    await asyncio.sleep(self._poll)
            finally:
                jobs = list(self._held.values())
                for job in jobs:
                    job.cancel()
                await asyncio.gather(*jobs, return_exceptions=True)

    async def _claim_more(self, pool: httpcore.AsyncConnectionPool) -> None:
        room = self._max_held - len(self._held)
        if room <= 0:
            return
        try:
            claimed = await self._configs.claim(
                self._replica, datetime.now(UTC), self._until(), room
            )
        except Exception as error:  # noqa: BLE001 - the database is out of reach: next round
            log.warning("cannot claim push notifications", error=str(error))
            return
        for config in claimed:
            key = (config.tenant, config.task_id, config.config_id)
            job = asyncio.create_task(self._deliver(pool, config), name="agentd-a2a-push")
            self._held[key] = job
            job.add_done_callback(functools.partial(self._forget, key))

    def _forget(self, key: tuple[str, str, str], _: asyncio.Task[None]) -> None:
        self._held.pop(key, None)

    async def _deliver(self, pool: httpcore.AsyncConnectionPool, config: PushConfig) -> None:
        """Send the config's task's updates after its cursor, in order, until the task's
        last event (the config is then finished) or the claim is lost; the claim is
        renewed meanwhile (a task may be quiet for longer than the lease)."""
        cursor = [config.delivered_through]
        renewing = asyncio.create_task(self._renew(config, cursor))
        try:
            task = await self._tasks.get(config.tenant, config.task_id)
            events = self._tasks.read_events(config.tenant, config.task_id, cursor[0])
            async for event in events:
                update = convert.update_of(task, event)
                if update is not None:
                    await self._post_until_delivered(pool, config, event, update)
                cursor[0] = event.sequence
                if not await self._configs.advance(
                    config, self._replica, event.sequence, event.terminal, self._until()
                ):
                    return
        except _ClaimLost:
            return
        except TaskNotFoundError:  # the task and its log are gone: nothing more can be sent
            log.warning(
                "push notifications end: the task's events are gone", task_id=config.task_id
            )
            with contextlib.suppress(Exception):
                await self._configs.advance(config, self._replica, cursor[0], True, self._until())
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._configs.release(config, self._replica))
            raise
        except Exception as error:  # noqa: BLE001 - the task or its log is gone: said, left
            log.warning("push notifications stopped", task_id=config.task_id, error=str(error))
        finally:
            renewing.cancel()

    async def _renew(self, config: PushConfig, cursor: list[int]) -> None:
        """Keep the claim while delivering (a third of the lease at a time)."""
        while True:
            await asyncio.sleep(self._lease / 3)
            with contextlib.suppress(Exception):  # the database may be out of reach: again
                await self._configs.advance(config, self._replica, cursor[0], False, self._until())

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
            outcome = await self._post(pool, config.url, headers, body)
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

    async def _post(
        self,
        pool: httpcore.AsyncConnectionPool,
        url: str,
        headers: list[tuple[str, str]],
        body: bytes,
    ) -> str | None:
        """None when the receiver took it (2xx), else why not."""
        try:
            response = await pool.request(
                "POST",
                url,
                headers=headers,
                content=body,
                extensions={"timeout": timeouts(self._timeout)},
            )
        except Exception as error:  # noqa: BLE001 - any failure to deliver is retried
            return f"{type(error).__name__}: {error}"
        if 200 <= response.status < 300:
            return None
        return f"HTTP {response.status}"
