"""The webhooks' outbox in SQL (SQLite or PostgreSQL): events, their deliveries and the
streams they are delivered in (`stores.webhooks.tables`).

An event is written with its deliveries in one commit of the group commit, as plain
inserts (batched with other callers' rows); a repeat fails on the keys and is dropped. A claim is a
compare-and-set on the stream's row: an UPDATE of a row whose claim is free or expired
(PostgreSQL re-reads a row another transaction just claimed and finds it taken), or the
INSERT of a row not there yet (of two, the primary key lets one in).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, delete, exists, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from records.webhooks import Delivery, DeliveryState, OutboxEvent, Stream
from stores.sql.database import Database, insert_of
from stores.sql.times import aware
from stores.webhooks.base import Swept
from stores.webhooks.tables import webhook_deliveries, webhook_events, webhook_streams, webhooks

_W = webhooks.c
_D = webhook_deliveries.c
_E = webhook_events.c
_S = webhook_streams.c
PENDING, DEAD = DeliveryState.PENDING.value, DeliveryState.DEAD.value


def _stream_key(stream: Stream) -> Any:
    return and_(_S.webhook_id == stream.webhook_id, _S.task_id == stream.task_id)


def _delivery_key(delivery: Delivery) -> Any:
    return and_(_D.webhook_id == delivery.webhook_id, _D.event_id == delivery.event.event_id)


class SqlWebhookOutbox:
    """WebhookOutbox on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer
        dialect = database.dialect
        self._stream = insert_of(dialect, webhook_streams).on_conflict_do_nothing(
            index_elements=["webhook_id", "task_id"]
        )

    async def _rows(self, query: Any) -> Sequence[Any]:
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).all()

    async def write(self, event: OutboxEvent, webhook_ids: Sequence[str]) -> None:
        row = {
            "event_id": event.event_id,
            "tenant": event.tenant,
            "task_id": event.task_id,
            "event_type": event.event_type,
            "created_at": event.created_at,
            "data": json.dumps(event.data, sort_keys=True, separators=(",", ":")),
        }
        # Queued together, so one commit takes them (with other callers' rows of the same
        # tables, in one executemany each); a repeat fails on the keys, alone: kept already.
        writes = [self._writer.enqueue(webhook_events, row)]
        for webhook_id in webhook_ids:
            delivery = {
                "webhook_id": webhook_id,
                "event_id": event.event_id,
                "tenant": event.tenant,
                "task_id": event.task_id,
                "state": PENDING,
                "queued_at": event.created_at,
                "attempts": 0,
                "last_error": "",
                "dead_at": None,
            }
            writes.append(self._writer.enqueue(webhook_deliveries, delivery))
        self._writer.commit_pending()
        for outcome in await asyncio.gather(*writes, return_exceptions=True):
            if isinstance(outcome, BaseException) and not isinstance(outcome, IntegrityError):
                raise outcome

    async def claim(self, replica: str, now: datetime, until: datetime, limit: int) -> list[Stream]:
        free = or_(
            _S.webhook_id.is_(None),
            and_(
                or_(_S.claimed_until.is_(None), _S.claimed_until < now),
                or_(_S.retry_at.is_(None), _S.retry_at <= now),
            ),
        )
        joined = webhook_deliveries.join(webhooks, _W.webhook_id == _D.webhook_id).outerjoin(
            webhook_streams, and_(_S.webhook_id == _D.webhook_id, _S.task_id == _D.task_id)
        )
        query = (
            select(_D.tenant, _D.webhook_id, _D.task_id)
            .select_from(joined)
            .where(_D.state == PENDING, _W.paused.is_(False), free)
            .group_by(_D.tenant, _D.webhook_id, _D.task_id)
            .order_by(func.min(_D.queued_at))
            .limit(limit)
        )
        claimed: list[Stream] = []
        for row in await self._rows(query):
            stream = Stream(row.tenant, row.webhook_id, row.task_id)
            if await self._take(stream, replica, now, until):
                claimed.append(stream)
        return claimed

    async def _take(self, stream: Stream, replica: str, now: datetime, until: datetime) -> bool:
        taken = (
            update(webhook_streams)
            .where(
                _stream_key(stream),
                or_(_S.claimed_until.is_(None), _S.claimed_until < now),
                or_(_S.retry_at.is_(None), _S.retry_at <= now),
            )
            .values(claimed_by=replica, claimed_until=until, retry_at=None, updated_at=now)
        )
        if await self._writer.execute(taken):
            return True
        row = {
            "webhook_id": stream.webhook_id,
            "task_id": stream.task_id,
            "tenant": stream.tenant,
            "claimed_by": replica,
            "claimed_until": until,
            "retry_at": None,
            "delivered_through": 0,
            "updated_at": now,
        }
        return bool(await self._writer.execute(self._stream, row))

    async def renew(self, stream: Stream, replica: str, until: datetime) -> bool:
        statement = (
            update(webhook_streams)
            .where(_stream_key(stream), _S.claimed_by == replica)
            .values(claimed_until=until)
        )
        return bool(await self._writer.execute(statement))

    async def release(self, stream: Stream, replica: str, retry_at: datetime | None = None) -> None:
        statement = (
            update(webhook_streams)
            .where(_stream_key(stream), _S.claimed_by == replica)
            .values(claimed_by="", claimed_until=None, retry_at=retry_at)
        )
        await self._writer.execute(statement)

    async def pending(self, stream: Stream, limit: int) -> list[Delivery]:
        query = (
            select(
                _D.queued_at,
                _D.attempts,
                _E.event_id,
                _E.event_type,
                _E.created_at,
                _E.data,
                _E.position,
            )
            .join(webhook_events, _E.event_id == _D.event_id)
            .where(
                _D.webhook_id == stream.webhook_id,
                _D.task_id == stream.task_id,
                _D.state == PENDING,
            )
            .order_by(_E.position)
            .limit(limit)
        )
        return [
            Delivery(
                event=OutboxEvent(
                    event_id=row.event_id,
                    tenant=stream.tenant,
                    task_id=stream.task_id,
                    event_type=row.event_type,
                    created_at=aware(row.created_at),
                    data=json.loads(row.data),
                    position=row.position,
                ),
                webhook_id=stream.webhook_id,
                queued_at=aware(row.queued_at),
                attempts=row.attempts,
            )
            for row in await self._rows(query)
        ]

    async def delivered(self, stream: Stream, delivery: Delivery, now: datetime) -> None:
        position = delivery.event.position
        cursor = case((_S.delivered_through < position, position), else_=_S.delivered_through)
        await self._writer.execute_together(
            [
                (delete(webhook_deliveries).where(_delivery_key(delivery)), None),
                (
                    update(webhook_streams)
                    .where(_stream_key(stream))
                    .values(delivered_through=cursor, updated_at=now),
                    None,
                ),
                (
                    update(webhooks)
                    .where(_W.webhook_id == stream.webhook_id)
                    .values(last_delivered_at=now, failing_attempts=0),
                    None,
                ),
            ]
        )

    async def failed(self, stream: Stream, delivery: Delivery, error: str, now: datetime) -> None:
        await self._writer.execute_together(
            [
                (
                    update(webhook_deliveries)
                    .where(_delivery_key(delivery))
                    .values(attempts=_D.attempts + 1, last_error=error),
                    None,
                ),
                (
                    update(webhooks)
                    .where(_W.webhook_id == stream.webhook_id)
                    .values(
                        last_failed_at=now,
                        last_error=error,
                        failing_attempts=_W.failing_attempts + 1,
                    ),
                    None,
                ),
            ]
        )

    async def give_up(self, stream: Stream, delivery: Delivery, now: datetime) -> None:
        statement = (
            update(webhook_deliveries)
            .where(_delivery_key(delivery), _D.state == PENDING)
            .values(state=DEAD, dead_at=now)
        )
        await self._writer.execute(statement)

    async def sweep(self, now: datetime, retention_seconds: float) -> Swept:
        cutoff = now - timedelta(seconds=retention_seconds)
        given_up = await self._writer.execute(
            update(webhook_deliveries)
            .where(_D.state == PENDING, _D.queued_at < cutoff)
            .values(state=DEAD, dead_at=now)
        )
        deleted = await self._writer.execute(
            delete(webhook_deliveries).where(_D.state == DEAD, _D.dead_at < cutoff)
        )
        needed = exists().where(_D.event_id == _E.event_id)
        await self._writer.execute(delete(webhook_events).where(~needed))
        waiting = exists().where(
            _D.webhook_id == _S.webhook_id, _D.task_id == _S.task_id, _D.state == PENDING
        )
        idle = or_(_S.claimed_until.is_(None), _S.claimed_until < now)
        await self._writer.execute(
            delete(webhook_streams).where(idle, _S.updated_at < cutoff, ~waiting)
        )
        query = select(_D.state, func.count()).group_by(_D.state)
        counts = {row[0]: int(row[1]) for row in await self._rows(query)}
        return Swept(given_up, deleted, counts.get(PENDING, 0), counts.get(DEAD, 0))
