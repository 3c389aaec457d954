"""Webhooks in SQL (SQLite or PostgreSQL): the endpoints, their health and dead letters
(`stores.webhooks.tables`, migration 0027). The outbox is `stores.webhooks.sql_outbox`."""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, func, select, update

from core.keyring import KeyRing
from records.paging import Page, PositionCursor, TimeKeyCursor
from records.webhooks import (
    DeadLetter,
    DeliveryState,
    Webhook,
    WebhookHealth,
)
from stores.sql.database import Database
from stores.sql.times import aware
from stores.webhooks.base import resealed
from stores.webhooks.tables import webhook_deliveries, webhook_events, webhook_streams, webhooks

_W = webhooks.c
_D = webhook_deliveries.c
_E = webhook_events.c
_S = webhook_streams.c
PENDING, DEAD = DeliveryState.PENDING.value, DeliveryState.DEAD.value
RESEAL_PAGE = 500


def _webhook(row: Any, counts: dict[tuple[str, str], int] | None = None) -> Webhook:
    health = WebhookHealth()
    if counts is not None:
        health = WebhookHealth(
            pending=counts.get((row.webhook_id, PENDING), 0),
            dead_letters=counts.get((row.webhook_id, DEAD), 0),
            last_delivered_at=aware(row.last_delivered_at),
            last_failed_at=aware(row.last_failed_at),
            last_error=row.last_error,
            failing_attempts=row.failing_attempts,
        )
    return Webhook(
        webhook_id=row.webhook_id,
        tenant=row.tenant,
        url=row.url,
        event_types=tuple(json.loads(row.event_types)),
        agents=tuple(json.loads(row.agents)),
        labels=dict(json.loads(row.labels)),
        description=row.description,
        paused=row.paused,
        created_by=row.created_by,
        created_at=aware(row.created_at),
        secret=row.secret,
        health=health,
    )


def _settings(webhook: Webhook) -> dict[str, Any]:
    """The columns an update replaces."""
    return {
        "url": webhook.url,
        "event_types": json.dumps(list(webhook.event_types)),
        "agents": json.dumps(list(webhook.agents)),
        "labels": json.dumps(dict(webhook.labels), sort_keys=True),
        "description": webhook.description,
        "paused": webhook.paused,
    }


def _key(tenant: str, webhook_id: str) -> Any:
    return and_(_W.tenant == tenant, _W.webhook_id == webhook_id)


class SqlWebhookStore:
    """WebhookStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def _rows(self, query: Any) -> Sequence[Any]:
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).all()

    async def _counts(self, ids: Sequence[str]) -> dict[tuple[str, str], int]:
        if not ids:
            return {}
        query = (
            select(_D.webhook_id, _D.state, func.count())
            .where(_D.webhook_id.in_(ids))
            .group_by(_D.webhook_id, _D.state)
        )
        return {(row[0], row[1]): int(row[2]) for row in await self._rows(query)}

    async def create(self, webhook: Webhook) -> None:
        await self._writer.insert(
            webhooks,
            {
                "webhook_id": webhook.webhook_id,
                "tenant": webhook.tenant,
                **_settings(webhook),
                "secret": webhook.secret,
                "created_by": webhook.created_by,
                "created_at": webhook.created_at,
                "last_delivered_at": None,
                "last_failed_at": None,
                "last_error": "",
                "failing_attempts": 0,
            },
        )

    async def get(self, tenant: str, webhook_id: str) -> Webhook | None:
        rows = await self._rows(select(webhooks).where(_key(tenant, webhook_id)))
        if not rows:
            return None
        return _webhook(rows[0], await self._counts([webhook_id]))

    async def list(
        self, tenant: str, limit: int, after: TimeKeyCursor | None = None
    ) -> Page[Webhook, TimeKeyCursor]:
        query = select(webhooks).where(_W.tenant == tenant)
        if after is not None:
            query = query.where(
                (_W.created_at > after.created_at)
                | ((_W.created_at == after.created_at) & (_W.webhook_id > after.item_id))
            )
        query = query.order_by(_W.created_at, _W.webhook_id).limit(limit + 1)
        rows = await self._rows(query)
        counts = await self._counts([row.webhook_id for row in rows[:limit]])
        found = [_webhook(row, counts) for row in rows]
        return Page.cut(found, limit, _cursor)

    async def of_tenant(self, tenant: str) -> builtins.list[Webhook]:
        query = select(webhooks).where(_W.tenant == tenant).order_by(_W.created_at)
        return [_webhook(row) for row in await self._rows(query)]

    async def update(self, webhook: Webhook) -> bool:
        statement = (
            update(webhooks)
            .where(_key(webhook.tenant, webhook.webhook_id))
            .values(**_settings(webhook))
        )
        return bool(await self._writer.execute(statement))

    async def set_secret(self, tenant: str, webhook_id: str, sealed: str) -> bool:
        statement = update(webhooks).where(_key(tenant, webhook_id)).values(secret=sealed)
        return bool(await self._writer.execute(statement))

    async def delete(self, tenant: str, webhook_id: str) -> bool:
        mine_d = and_(_D.tenant == tenant, _D.webhook_id == webhook_id)
        mine_s = and_(_S.tenant == tenant, _S.webhook_id == webhook_id)
        return bool(
            await self._writer.execute_together(
                [
                    (delete(webhook_deliveries).where(mine_d), None),
                    (delete(webhook_streams).where(mine_s), None),
                    (delete(webhooks).where(_key(tenant, webhook_id)), None),
                ]
            )
        )

    async def reseal(self, ring: KeyRing) -> int:
        """Every secret not sealed with the ring's current key, sealed with it; a row
        changed meanwhile (on another replica) is left as it became."""
        changed, after = 0, ""
        while True:
            query = (
                select(_W.webhook_id, _W.tenant, _W.secret)
                .where(_W.webhook_id > after)
                .order_by(_W.webhook_id)
                .limit(RESEAL_PAGE)
            )
            rows = await self._rows(query)
            for row in rows:
                fresh = resealed(ring, row.tenant, row.webhook_id, row.secret)
                if fresh is None:
                    continue
                statement = (
                    update(webhooks)
                    .where(_W.webhook_id == row.webhook_id, _W.secret == row.secret)
                    .values(secret=fresh)
                )
                changed += await self._writer.execute(statement)
            if len(rows) < RESEAL_PAGE:
                return changed
            after = rows[-1].webhook_id

    async def dead_letters(
        self, tenant: str, webhook_id: str, limit: int, after: PositionCursor | None = None
    ) -> Page[DeadLetter, PositionCursor]:
        query = (
            select(
                _D.event_id,
                _D.task_id,
                _D.dead_at,
                _D.attempts,
                _D.last_error,
                _E.event_type,
                _E.created_at,
                _E.position,
            )
            .join(webhook_events, _E.event_id == _D.event_id)
            .where(_D.tenant == tenant, _D.webhook_id == webhook_id, _D.state == DEAD)
        )
        if after is not None:
            query = query.where(_E.position > after.position)
        rows = await self._rows(query.order_by(_E.position).limit(limit + 1))
        found = [
            DeadLetter(
                event_id=row.event_id,
                event_type=row.event_type,
                task_id=row.task_id,
                created_at=aware(row.created_at),
                dead_at=aware(row.dead_at),
                attempts=row.attempts,
                last_error=row.last_error,
                position=row.position,
            )
            for row in rows
        ]
        return Page.cut(found, limit, lambda d: PositionCursor(d.position))

    async def redeliver(
        self, tenant: str, webhook_id: str, event_ids: Sequence[str], now: datetime
    ) -> int:
        which = [_D.tenant == tenant, _D.webhook_id == webhook_id, _D.state == DEAD]
        if event_ids:
            which.append(_D.event_id.in_(list(event_ids)))
        again = (
            update(webhook_deliveries)
            .where(*which)
            .values(state=PENDING, queued_at=now, attempts=0, dead_at=None)
        )
        soon = (
            update(webhook_streams)
            .where(_S.tenant == tenant, _S.webhook_id == webhook_id, _S.retry_at.is_not(None))
            .values(retry_at=None)
        )
        return await self._writer.execute_together([(soon, None), (again, None)])


def _cursor(webhook: Webhook) -> TimeKeyCursor:
    assert webhook.created_at is not None
    return TimeKeyCursor(webhook.created_at, webhook.webhook_id, "")
