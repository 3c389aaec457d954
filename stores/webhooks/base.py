"""Webhooks (`records.webhooks`): a tenant's endpoints, and the outbox their events are
delivered from.

`WebhookStore` keeps the endpoints (their secrets only sealed: the caller seals, `reseal`
moves them to the ring's current key) and their dead letters. `WebhookOutbox` is the
outbox: `write` keeps an event once with a delivery per webhook it goes to, in one
transaction, and a repeat of the same event id writes nothing (a status change repeated
after a takeover); each event's `position` grows in the order events are written, so a
task's events are in its order.

Delivery, concurrency and lifecycle: the deliveries of one webhook and one task are a
stream. A replica `claim`s due streams (with pending deliveries, of webhooks not paused,
not held by another replica's unexpired claim, not waiting for a retry); one holder at a
time: a claim is a compare-and-set on the stream's row, so of two replicas claiming at
once one gets it. The holder reads the stream's `pending` deliveries in position order,
POSTs each, and marks it `delivered` (its delivery gone, the stream's cursor moved) or
`failed` (counted; the stream is `release`d with a time to retry at, so a receiver that
is down holds no replica's place). A holder that dies stops renewing; its streams are
claimed again once the claims expire: a delivery may be made twice, never out of order.
A delivery older than the retention is given up (`give_up`, or `sweep` for those no one
holds): a dead letter, until `redeliver` queues it again (its retention counted anew) or
the retention passes again (`sweep` deletes it, and events no delivery needs).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import structlog

from core.keyring import KeyRing, SealedValueError
from records.paging import Page, PositionCursor, TimeKeyCursor
from records.webhooks import (
    SECRET_PURPOSE,
    DeadLetter,
    Delivery,
    OutboxEvent,
    Stream,
    Webhook,
    secret_binding,
)

log = structlog.get_logger(__name__)


def resealed(ring: KeyRing, tenant: str, webhook_id: str, secret: str) -> str | None:
    """A webhook's stored secret under `ring`'s current key (sealed now if it was kept in
    plain text), or None when it is already or does not open (its key gone from the
    ring, or altered: left as it is, and logged), for every store's `reseal`."""
    bound = secret_binding(tenant, webhook_id)
    try:
        fresh = ring.reseal(SECRET_PURPOSE, secret, bound)
    except SealedValueError as error:
        log.error(
            "a webhook's secret does not open: left as it is",
            tenant=tenant,
            webhook_id=webhook_id,
            error=str(error),
        )
        return None
    return None if fresh == secret else fresh


class WebhookStore(Protocol):
    async def create(self, webhook: Webhook) -> None:
        """Keep a new webhook (`created_at` set, its secret sealed)."""
        ...

    async def get(self, tenant: str, webhook_id: str) -> Webhook | None:
        """The webhook with its health (None: the tenant has no such webhook)."""
        ...

    async def list(
        self, tenant: str, limit: int, after: TimeKeyCursor | None = None
    ) -> Page[Webhook, TimeKeyCursor]:
        """The tenant's webhooks with their health, oldest first."""
        ...

    async def of_tenant(self, tenant: str) -> builtins.list[Webhook]:
        """Every webhook of the tenant, without health (what events are matched against)."""
        ...

    async def update(self, webhook: Webhook) -> bool:
        """Replace its url, filters, description and pause; False: no such webhook."""
        ...

    async def set_secret(self, tenant: str, webhook_id: str, sealed: str) -> bool:
        """A new sealed secret; False: no such webhook."""
        ...

    async def delete(self, tenant: str, webhook_id: str) -> bool:
        """Delete it with its deliveries, streams and dead letters; False: none."""
        ...

    async def reseal(self, ring: KeyRing) -> int:
        """`core.keyring.SealedValues`: every secret sealed with the ring's current key."""
        ...

    async def dead_letters(
        self, tenant: str, webhook_id: str, limit: int, after: PositionCursor | None = None
    ) -> Page[DeadLetter, PositionCursor]:
        """The webhook's dead letters, oldest event first."""
        ...

    async def redeliver(
        self, tenant: str, webhook_id: str, event_ids: Sequence[str], now: datetime
    ) -> int:
        """Queue dead letters again (those of `event_ids`, or every one for none), their
        retention counted from `now`; how many were queued."""
        ...


@dataclass(frozen=True, slots=True)
class Swept:
    """What a sweep did."""

    given_up: int = 0
    """Deliveries past the retention, now dead letters."""
    deleted: int = 0
    """Dead letters past their retention, deleted."""
    pending: int = 0
    """Deliveries still waiting, after the sweep (every tenant)."""
    dead: int = 0
    """Dead letters kept, after the sweep (every tenant)."""


class WebhookOutbox(Protocol):
    async def write(self, event: OutboxEvent, webhook_ids: Sequence[str]) -> None:
        """Keep `event` with a delivery to each of `webhook_ids` (at least one), queued at
        its time; nothing when it is kept already."""
        ...

    async def claim(self, replica: str, now: datetime, until: datetime, limit: int) -> list[Stream]:
        """Up to `limit` due streams, each now held by `replica` until `until`."""
        ...

    async def renew(self, stream: Stream, replica: str, until: datetime) -> bool:
        """Hold the stream until `until`; False when `replica` does not hold it (any more)."""
        ...

    async def release(self, stream: Stream, replica: str, retry_at: datetime | None = None) -> None:
        """Give the claim up (if `replica` holds it); not claimed again before `retry_at`."""
        ...

    async def pending(self, stream: Stream, limit: int) -> list[Delivery]:
        """The stream's first `limit` pending deliveries, in position order."""
        ...

    async def delivered(self, stream: Stream, delivery: Delivery, now: datetime) -> None:
        """The receiver took it: the delivery is done, the stream's cursor moves to its
        position, the webhook's health says so."""
        ...

    async def failed(self, stream: Stream, delivery: Delivery, error: str, now: datetime) -> None:
        """An attempt failed: counted on the delivery and the webhook's health."""
        ...

    async def give_up(self, stream: Stream, delivery: Delivery, now: datetime) -> None:
        """Past its retention: the delivery becomes a dead letter."""
        ...

    async def sweep(self, now: datetime, retention_seconds: float) -> Swept:
        """Give up pending deliveries queued before `now` - retention, delete dead letters
        that died before it and events nothing needs, forget idle streams."""
        ...
