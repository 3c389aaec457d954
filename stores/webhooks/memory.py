"""Webhooks and their outbox in this process (tests, a server without replicas): one
object is both the `WebhookStore` and the `WebhookOutbox`, with the same rules as SQL."""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from core.keyring import KeyRing
from records.paging import Page, PositionCursor, TimeKeyCursor
from records.webhooks import (
    DeadLetter,
    Delivery,
    DeliveryState,
    OutboxEvent,
    Stream,
    Webhook,
    WebhookHealth,
)
from stores.webhooks.base import Swept, resealed


@dataclass(slots=True)
class _Due:
    webhook_id: str
    event_id: str
    tenant: str
    task_id: str
    queued_at: datetime
    state: DeliveryState = DeliveryState.PENDING
    attempts: int = 0
    last_error: str = ""
    dead_at: datetime | None = None


@dataclass(slots=True)
class _Stream:
    claimed_by: str = ""
    claimed_until: datetime | None = None
    retry_at: datetime | None = None
    delivered_through: int = 0
    updated_at: datetime | None = None


class InMemoryWebhooks:
    """WebhookStore and WebhookOutbox in this process."""

    def __init__(self) -> None:
        self._webhooks: dict[str, Webhook] = {}
        self._events: dict[str, OutboxEvent] = {}
        self._due: dict[tuple[str, str], _Due] = {}
        self._streams: dict[tuple[str, str], _Stream] = {}
        self._positions = itertools.count(1)

    def _mine(self, tenant: str, webhook_id: str) -> Webhook | None:
        found = self._webhooks.get(webhook_id)
        return found if found is not None and found.tenant == tenant else None

    def _with_health(self, webhook: Webhook) -> Webhook:
        states = [d.state for d in self._due.values() if d.webhook_id == webhook.webhook_id]
        health = replace(
            webhook.health,
            pending=states.count(DeliveryState.PENDING),
            dead_letters=states.count(DeliveryState.DEAD),
        )
        return replace(webhook, health=health)

    async def create(self, webhook: Webhook) -> None:
        self._webhooks[webhook.webhook_id] = replace(webhook, health=WebhookHealth())

    async def get(self, tenant: str, webhook_id: str) -> Webhook | None:
        found = self._mine(tenant, webhook_id)
        return self._with_health(found) if found is not None else None

    async def list(
        self, tenant: str, limit: int, after: TimeKeyCursor | None = None
    ) -> Page[Webhook, TimeKeyCursor]:
        def key(w: Webhook) -> tuple[datetime, str]:
            assert w.created_at is not None
            return (w.created_at, w.webhook_id)

        found = sorted((w for w in self._webhooks.values() if w.tenant == tenant), key=key)
        if after is not None:
            found = [w for w in found if key(w) > (after.created_at, after.item_id)]
        return Page.cut(
            [self._with_health(w) for w in found[: limit + 1]],
            limit,
            lambda w: TimeKeyCursor(key(w)[0], w.webhook_id, ""),
        )

    async def of_tenant(self, tenant: str) -> builtins.list[Webhook]:
        return [w for w in self._webhooks.values() if w.tenant == tenant]

    async def update(self, webhook: Webhook) -> bool:
        found = self._mine(webhook.tenant, webhook.webhook_id)
        if found is None:
            return False
        self._webhooks[webhook.webhook_id] = replace(
            found,
            url=webhook.url,
            event_types=webhook.event_types,
            agents=webhook.agents,
            labels=dict(webhook.labels),
            description=webhook.description,
            paused=webhook.paused,
        )
        return True

    async def set_secret(self, tenant: str, webhook_id: str, sealed: str) -> bool:
        found = self._mine(tenant, webhook_id)
        if found is None:
            return False
        self._webhooks[webhook_id] = replace(found, secret=sealed)
        return True

    async def delete(self, tenant: str, webhook_id: str) -> bool:
        if self._mine(tenant, webhook_id) is None:
            return False
        del self._webhooks[webhook_id]
        for key in [k for k in self._due if k[0] == webhook_id]:
            del self._due[key]
        for key in [k for k in self._streams if k[0] == webhook_id]:
            del self._streams[key]
        return True

    async def reseal(self, ring: KeyRing) -> int:
        changed = 0
        for webhook in list(self._webhooks.values()):
            fresh = resealed(ring, webhook.tenant, webhook.webhook_id, webhook.secret)
            if fresh is not None:
                self._webhooks[webhook.webhook_id] = replace(webhook, secret=fresh)
                changed += 1
        return changed

    async def dead_letters(
        self, tenant: str, webhook_id: str, limit: int, after: PositionCursor | None = None
    ) -> Page[DeadLetter, PositionCursor]:
        found = []
        for due in self._due.values():
            event = self._events[due.event_id]
            if (
                due.tenant != tenant
                or due.webhook_id != webhook_id
                or due.state is not DeliveryState.DEAD
                or (after is not None and event.position <= after.position)
            ):
                continue
            assert due.dead_at is not None
            found.append(
                DeadLetter(
                    due.event_id,
                    event.event_type,
                    due.task_id,
                    event.created_at,
                    due.dead_at,
                    due.attempts,
                    due.last_error,
                    event.position,
                )
            )
        found.sort(key=lambda d: d.position)
        return Page.cut(found[: limit + 1], limit, lambda d: PositionCursor(d.position))

    async def redeliver(
        self, tenant: str, webhook_id: str, event_ids: Sequence[str], now: datetime
    ) -> int:
        queued = 0
        for due in self._due.values():
            if (
                due.tenant == tenant
                and due.webhook_id == webhook_id
                and due.state is DeliveryState.DEAD
                and (not event_ids or due.event_id in event_ids)
            ):
                due.state, due.queued_at, due.attempts, due.dead_at = (
                    DeliveryState.PENDING,
                    now,
                    0,
                    None,
                )
                self._streams.setdefault((webhook_id, due.task_id), _Stream()).retry_at = None
                queued += 1
        return queued

    async def write(self, event: OutboxEvent, webhook_ids: Sequence[str]) -> None:
        if event.event_id in self._events:
            return
        self._events[event.event_id] = replace(event, position=next(self._positions))
        for webhook_id in webhook_ids:
            self._due[(webhook_id, event.event_id)] = _Due(
                webhook_id, event.event_id, event.tenant, event.task_id, event.created_at
            )

    async def claim(
        self, replica: str, now: datetime, until: datetime, limit: int
    ) -> builtins.list[Stream]:
        due: dict[tuple[str, str], tuple[datetime, str]] = {}
        for d in self._due.values():
            webhook = self._webhooks.get(d.webhook_id)
            if d.state is not DeliveryState.PENDING or webhook is None or webhook.paused:
                continue
            key = (d.webhook_id, d.task_id)
            due[key] = min(due.get(key, (d.queued_at, d.tenant)), (d.queued_at, d.tenant))
        claimed: list[Stream] = []
        for key, (_, tenant) in sorted(due.items(), key=lambda item: item[1][0]):
            if len(claimed) >= limit:
                break
            stream = self._streams.setdefault(key, _Stream())
            if stream.claimed_until is not None and stream.claimed_until >= now:
                continue
            if stream.retry_at is not None and stream.retry_at > now:
                continue
            stream.claimed_by, stream.claimed_until, stream.retry_at = replica, until, None
            stream.updated_at = now
            claimed.append(Stream(tenant, *key))
        return claimed

    def _held(self, stream: Stream, replica: str) -> _Stream | None:
        held = self._streams.get((stream.webhook_id, stream.task_id))
        return held if held is not None and held.claimed_by == replica else None

    async def renew(self, stream: Stream, replica: str, until: datetime) -> bool:
        held = self._held(stream, replica)
        if held is None:
            return False
        held.claimed_until = until
        return True

    async def release(self, stream: Stream, replica: str, retry_at: datetime | None = None) -> None:
        held = self._held(stream, replica)
        if held is not None:
            held.claimed_by, held.claimed_until, held.retry_at = "", None, retry_at

    async def pending(self, stream: Stream, limit: int) -> builtins.list[Delivery]:
        found = [
            Delivery(self._events[d.event_id], d.webhook_id, d.queued_at, d.attempts)
            for d in self._due.values()
            if d.webhook_id == stream.webhook_id
            and d.task_id == stream.task_id
            and d.state is DeliveryState.PENDING
        ]
        return sorted(found, key=lambda d: d.event.position)[:limit]

    async def delivered(self, stream: Stream, delivery: Delivery, now: datetime) -> None:
        self._due.pop((delivery.webhook_id, delivery.event.event_id), None)
        held = self._streams.get((stream.webhook_id, stream.task_id))
        if held is not None:
            held.delivered_through = max(held.delivered_through, delivery.event.position)
            held.updated_at = now
        webhook = self._webhooks.get(stream.webhook_id)
        if webhook is not None:
            health = replace(webhook.health, last_delivered_at=now, failing_attempts=0)
            self._webhooks[webhook.webhook_id] = replace(webhook, health=health)

    async def failed(self, stream: Stream, delivery: Delivery, error: str, now: datetime) -> None:
        due = self._due.get((delivery.webhook_id, delivery.event.event_id))
        if due is not None:
            due.attempts += 1
            due.last_error = error
        webhook = self._webhooks.get(stream.webhook_id)
        if webhook is not None:
            failing = webhook.health.failing_attempts + 1
            health = replace(
                webhook.health, last_failed_at=now, last_error=error, failing_attempts=failing
            )
            self._webhooks[webhook.webhook_id] = replace(webhook, health=health)

    async def give_up(self, stream: Stream, delivery: Delivery, now: datetime) -> None:
        due = self._due.get((delivery.webhook_id, delivery.event.event_id))
        if due is not None and due.state is DeliveryState.PENDING:
            due.state, due.dead_at = DeliveryState.DEAD, now

    async def sweep(self, now: datetime, retention_seconds: float) -> Swept:
        cutoff = now - timedelta(seconds=retention_seconds)
        given_up = deleted = 0
        for key, due in list(self._due.items()):
            if due.state is DeliveryState.PENDING and due.queued_at < cutoff:
                due.state, due.dead_at = DeliveryState.DEAD, now
                given_up += 1
            elif due.state is DeliveryState.DEAD and due.dead_at and due.dead_at < cutoff:
                del self._due[key]
                deleted += 1
        needed = {due.event_id for due in self._due.values()}
        for event_id in [e for e in self._events if e not in needed]:
            del self._events[event_id]
        states = [due.state for due in self._due.values()]
        return Swept(
            given_up,
            deleted,
            states.count(DeliveryState.PENDING),
            states.count(DeliveryState.DEAD),
        )
