"""Webhook deliveries: every replica runs a `WebhookDeliverer`, which claims due streams (the
deliveries of one webhook for one task, `stores.webhooks`) and POSTs their events in order,
each signed the Standard Webhooks way (`server.delivery.signing`) with the webhook's
secret as it is now.

A delivery the receiver takes (2xx) is done; one it does not is counted and its stream is
given back with a time to try again (exponential backoff with full jitter over its
attempts), so a receiver that is down holds no replica's place and its other tasks'
streams go on. A delivery older than the retention is given up (a dead letter) and its
stream moves on; every replica also sweeps now and then (deliveries no one holds past the
retention, dead letters past another, events nothing needs) and sets the gauges. A
paused webhook's streams are not claimed. Every POST connects through the guarded,
pinned pool (`server.delivery.posting`) and is audited as A2A push notifications are.

An end (task.completed, failed, cancelled) is told before it is stored, so a receiver is
never told less than happened; it is sent once the task's stored state agrees. An end
the store refused (a run's late end after a cancel won, or one a process wrote before it
died and its task was taken over and ended otherwise) is dropped unsent (counted
`superseded`), and one whose task has not ended in the store yet is looked at again
shortly (not an attempt). A task
the live store no longer knows (its retention passed) is sent what was written.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta

import httpcore
import structlog

from core.identity import new_trace_id
from core.keyring import KeyRing
from core.metrics import (
    WEBHOOK_DEAD_LETTERS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_DELIVERY_DURATION,
    WEBHOOK_PENDING,
    labelled,
)
from records.audit import RpcRecord
from records.tasks import Task
from records.webhooks import (
    SECRET_PURPOSE,
    Delivery,
    OutboxEvent,
    Stream,
    Webhook,
    secret_binding,
)
from server.delivery.loop import ClaimLoop, backoff
from server.delivery.posting import post
from server.delivery.signing import signed_headers
from server.services.webhook_outbox import ENDS
from stores.audit.base import RpcAuditSink
from stores.webhooks.base import Swept, WebhookOutbox, WebhookStore
from tools.builtin.addresses import IPNetwork

log = structlog.get_logger(__name__)

AUDIT_METHOD = "/agentd.v1.AgentService/WebhookDelivery"
"""The method name of webhook deliveries' audit records (not an RPC of the service)."""
BATCH = 50
"""Deliveries of a stream read at a time."""
ENDED_AS = {event.value: status for status, event in ENDS.items()}
"""The status an end event says its task ended in, by the event's type."""
END_RECHECK_SECONDS = 0.2
"""How soon an end whose task has not ended in the store yet is looked at again."""
Find = Callable[[str, str], Awaitable[Task | None]]
"""The task of a tenant by its id, as the live store has it (None: it does not)."""


def body_of(event: OutboxEvent) -> bytes:
    """What is POSTed: `{"type", "timestamp", "data"}`, `data.sequence` the event's position
    (growing in its task's order); the same bytes on every attempt."""
    stamp = event.created_at.isoformat().replace("+00:00", "Z")
    data = {**event.data, "sequence": event.position}
    body = {"type": event.event_type, "timestamp": stamp, "data": data}
    return json.dumps(body, separators=(",", ":")).encode()


def _key(stream: Stream) -> tuple[str, str]:
    return (stream.webhook_id, stream.task_id)


class WebhookDeliverer:
    """Delivers the webhook streams this replica holds, and sweeps (see the module)."""

    def __init__(
        self,
        store: WebhookStore,
        outbox: WebhookOutbox,
        ring: KeyRing,
        replica: str,
        allowed: Sequence[IPNetwork],
        *,
        retention_seconds: float,
        lease_seconds: float = 10.0,
        poll_seconds: float = 0.5,
        timeout_seconds: float = 10.0,
        retry_base_seconds: float = 0.5,
        retry_cap_seconds: float = 300.0,
        sweep_seconds: float = 60.0,
        max_held: int = 64,
        audit: RpcAuditSink | None = None,
        find: Find | None = None,
    ) -> None:
        self._find = find
        """Where an end is checked against the task's stored state (None: never)."""
        self._store = store
        self._outbox = outbox
        self._ring = ring
        self._replica = replica
        self._retention = timedelta(seconds=retention_seconds)
        self._timeout = timeout_seconds
        self._retry = (retry_base_seconds, retry_cap_seconds)
        self._sweep_seconds = sweep_seconds
        self._audit = audit
        self._loop = ClaimLoop(
            outbox,
            self._deliver,
            _key,
            replica,
            allowed,
            lease_seconds=lease_seconds,
            poll_seconds=poll_seconds,
            max_held=max_held,
            name="agentd-webhooks",
        )

    def nudge(self) -> None:
        """Claim at once: an event was written here."""
        self._loop.nudge()

    async def run(self) -> None:
        """Deliver and sweep until cancelled; on cancel, give the claims back."""
        sweeping = asyncio.create_task(self._sweep_now_and_then(), name="agentd-webhook-sweep")
        try:
            await self._loop.run()
        finally:
            sweeping.cancel()
            await asyncio.gather(sweeping, return_exceptions=True)

    async def sweep(self) -> Swept:
        """One sweep (see `WebhookOutbox.sweep`), the gauges set from it."""
        swept = await self._outbox.sweep(datetime.now(UTC), self._retention.total_seconds())
        if swept.given_up:
            labelled(WEBHOOK_DELIVERIES, "dead").inc(swept.given_up)
        WEBHOOK_PENDING.set(swept.pending)
        WEBHOOK_DEAD_LETTERS.set(swept.dead)
        return swept

    async def _sweep_now_and_then(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception as error:  # noqa: BLE001 - the database is out of reach: later
                log.warning("cannot sweep the webhooks' outbox", error=str(error))
            await asyncio.sleep(self._sweep_seconds)

    async def _deliver(self, pool: httpcore.AsyncConnectionPool, stream: Stream) -> None:
        """The stream's deliveries in order, until none is left (the claim given back), one
        fails (given back with a time to retry) or the webhook is gone or paused."""
        while True:
            webhook = await self._store.get(stream.tenant, stream.webhook_id)
            if webhook is None or webhook.paused:
                await self._outbox.release(stream, self._replica)
                return
            bound = secret_binding(webhook.tenant, webhook.webhook_id)
            secret = self._ring.open(SECRET_PURPOSE, webhook.secret, bound).decode()
            batch = await self._outbox.pending(stream, BATCH)
            if not batch:
                await self._outbox.release(stream, self._replica)
                return
            for delivery in batch:
                now = datetime.now(UTC)
                if now - delivery.queued_at > self._retention:
                    await self._outbox.give_up(stream, delivery, now)
                    labelled(WEBHOOK_DELIVERIES, "dead").inc()
                    continue
                stored = await self._stored_end(delivery)
                if stored is False:  # an end the store refused: never sent
                    await self._outbox.delivered(stream, delivery, now)
                    labelled(WEBHOOK_DELIVERIES, "superseded").inc()
                    continue
                if stored is None:  # told before it is stored: looked at again shortly
                    later = now + timedelta(seconds=END_RECHECK_SECONDS)
                    await self._outbox.release(stream, self._replica, later)
                    return
                outcome = await self._attempt(pool, webhook, secret, delivery)
                now = datetime.now(UTC)
                if outcome is None:
                    await self._outbox.delivered(stream, delivery, now)
                    continue
                await self._outbox.failed(stream, delivery, outcome, now)
                wait = backoff(delivery.attempts + 1, *self._retry)
                await self._outbox.release(stream, self._replica, now + timedelta(seconds=wait))
                return

    async def _stored_end(self, delivery: Delivery) -> bool | None:
        """For an end: True when the task's stored state agrees (or the store no longer
        knows the task), False when it ended otherwise, None when it has not ended there
        yet; True for any other event."""
        event = delivery.event
        told = ENDED_AS.get(event.event_type)
        if told is None or self._find is None:
            return True
        task = await self._find(event.tenant, event.task_id)
        if task is None:
            return True
        if not task.status.terminal:
            return None
        if task.status is not told:
            log.info(
                "a webhook's end event dropped: the task ended otherwise",
                task_id=event.task_id,
                event_id=event.event_id,
                told=told.value,
                stored=task.status.value,
            )
            return False
        return True

    async def _attempt(
        self,
        pool: httpcore.AsyncConnectionPool,
        webhook: Webhook,
        secret: str,
        delivery: Delivery,
    ) -> str | None:
        """One signed POST of `delivery`: None when it was taken, else why not."""
        event = delivery.event
        body = body_of(event)
        headers = signed_headers(secret, event.event_id, int(time.time()), body)
        started, clock = datetime.now(UTC), time.perf_counter()
        outcome = await post(pool, webhook.url, headers, body, self._timeout)
        seconds = time.perf_counter() - clock
        WEBHOOK_DELIVERY_DURATION.observe(seconds)
        labelled(WEBHOOK_DELIVERIES, "delivered" if outcome is None else "failed").inc()
        log.info(
            "webhook delivery",
            webhook_id=delivery.webhook_id,
            task_id=event.task_id,
            event_id=event.event_id,
            type=event.event_type,
            outcome=outcome or "delivered",
            attempt=delivery.attempts + 1,
        )
        await self._record(delivery, webhook.created_by, body, outcome, started)
        return outcome

    async def _record(
        self,
        delivery: Delivery,
        principal: str,
        body: bytes,
        outcome: str | None,
        started: datetime,
    ) -> None:
        """One RPC audit record per POST (UNAVAILABLE when it was not taken)."""
        if self._audit is None:
            return
        record = RpcRecord(
            time=started,
            principal_id=principal or "agentd",
            tenant=delivery.event.tenant,
            method=AUDIT_METHOD,
            code="OK" if outcome is None else "UNAVAILABLE",
            duration_seconds=(datetime.now(UTC) - started).total_seconds(),
            trace_id=new_trace_id(),
            request_digest=hashlib.sha256(body).hexdigest(),
            task_id=delivery.event.task_id,
        )
        with contextlib.suppress(Exception):
            await self._audit.write(record)
