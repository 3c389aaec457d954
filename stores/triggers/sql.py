"""Triggers in SQL (SQLite or PostgreSQL): `stores.triggers.tables`, migration 0032. A
delivery is kept by an insert that does nothing on a conflict of `(trigger_id,
webhook_id)`, so of two replicas keeping the same delivery at once, one counts it and
both answer the task id kept first."""

from __future__ import annotations

import builtins
import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, select, tuple_, update

from records.paging import Page, TimeKeyCursor
from records.triggers import Trigger
from stores.sql.database import Database, insert_of
from stores.sql.times import aware
from stores.triggers.memory import cursor_of
from stores.triggers.tables import trigger_deliveries, triggers

_T = triggers.c
_D = trigger_deliveries.c


def _trigger(row: Any) -> Trigger:
    return Trigger(
        trigger_id=row.trigger_id,
        tenant=row.tenant,
        principal=row.principal,
        roles=tuple(json.loads(row.roles)),
        display_name=row.display_name,
        agent=row.agent,
        goal=row.goal,
        context=dict(json.loads(row.context)),
        token_budget=row.token_budget,
        spend_limit=row.spend_limit,
        timeout_seconds=row.timeout_seconds,
        labels=dict(json.loads(row.labels)),
        secret=row.secret,
        previous_secret=row.previous_secret,
        previous_until=aware(row.previous_until),
        created_at=aware(row.created_at),
        last_delivery_at=aware(row.last_delivery_at),
        deliveries=row.deliveries,
        refused=row.refused,
    )


def _row(trigger: Trigger) -> dict[str, Any]:
    return {
        "trigger_id": trigger.trigger_id,
        "tenant": trigger.tenant,
        "principal": trigger.principal,
        "roles": json.dumps(list(trigger.roles)),
        "display_name": trigger.display_name,
        "agent": trigger.agent,
        "goal": trigger.goal,
        "context": json.dumps(dict(trigger.context), sort_keys=True),
        "token_budget": trigger.token_budget,
        "spend_limit": trigger.spend_limit,
        "timeout_seconds": trigger.timeout_seconds,
        "labels": json.dumps(dict(trigger.labels), sort_keys=True),
        "secret": trigger.secret,
        "previous_secret": trigger.previous_secret,
        "previous_until": trigger.previous_until,
        "created_at": trigger.created_at,
        "last_delivery_at": trigger.last_delivery_at,
        "deliveries": trigger.deliveries,
        "refused": trigger.refused,
    }


def _key(tenant: str, trigger_id: str) -> Any:
    return and_(_T.tenant == tenant, _T.trigger_id == trigger_id)


class SqlTriggerStore:
    """TriggerStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer
        self._dialect = database.dialect

    async def _rows(self, query: Any) -> Sequence[Any]:
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).all()

    async def create(self, trigger: Trigger) -> None:
        await self._writer.insert(triggers, _row(trigger))

    async def get(self, tenant: str, trigger_id: str) -> Trigger | None:
        rows = await self._rows(select(triggers).where(_key(tenant, trigger_id)))
        return _trigger(rows[0]) if rows else None

    async def find(self, trigger_id: str) -> Trigger | None:
        rows = await self._rows(select(triggers).where(_T.trigger_id == trigger_id))
        return _trigger(rows[0]) if rows else None

    async def list(
        self, tenant: str, limit: int, after: TimeKeyCursor | None = None
    ) -> Page[Trigger, TimeKeyCursor]:
        query = select(triggers).where(_T.tenant == tenant)
        if after is not None:
            query = query.where(
                (_T.created_at > after.created_at)
                | ((_T.created_at == after.created_at) & (_T.trigger_id > after.item_id))
            )
        query = query.order_by(_T.created_at, _T.trigger_id).limit(limit + 1)
        return Page.cut([_trigger(row) for row in await self._rows(query)], limit, cursor_of)

    async def delete(self, tenant: str, trigger_id: str) -> bool:
        if await self.get(tenant, trigger_id) is None:
            return False
        removed = await self._writer.execute_together(
            [
                (delete(trigger_deliveries).where(_D.trigger_id == trigger_id), None),
                (delete(triggers).where(_key(tenant, trigger_id)), None),
            ]
        )
        return removed > 0

    async def rotate(
        self, tenant: str, trigger_id: str, secret: str, previous: str, until: datetime
    ) -> bool:
        statement = (
            update(triggers)
            .where(_key(tenant, trigger_id))
            .values(secret=secret, previous_secret=previous, previous_until=until)
        )
        return bool(await self._writer.execute(statement))

    async def delivery(self, trigger_id: str, webhook_id: str) -> str | None:
        query = select(_D.task_id).where(
            and_(_D.trigger_id == trigger_id, _D.webhook_id == webhook_id)
        )
        rows = await self._rows(query)
        return str(rows[0][0]) if rows else None

    async def delivered(self, trigger_id: str, webhook_id: str, task_id: str, at: datetime) -> str:
        row = {"trigger_id": trigger_id, "webhook_id": webhook_id, "task_id": task_id}
        keep = insert_of(self._dialect, trigger_deliveries).values(**row, delivered_at=at)
        if await self._writer.execute(keep.on_conflict_do_nothing()):
            counted = (
                update(triggers)
                .where(_T.trigger_id == trigger_id)
                .values(deliveries=_T.deliveries + 1, last_delivery_at=at)
            )
            await self._writer.execute(counted)
            return task_id
        kept = await self.delivery(trigger_id, webhook_id)
        return kept if kept is not None else task_id

    name = "trigger deliveries"

    async def sweep(self, before: datetime, limit: int) -> int:
        picked = (
            select(_D.trigger_id, _D.webhook_id)
            .where(_D.delivered_at < before)
            .order_by(_D.delivered_at)
            .limit(limit)
        )
        keys = [(row.trigger_id, row.webhook_id) for row in await self._rows(picked)]
        if not keys:
            return 0
        gone = delete(trigger_deliveries).where(tuple_(_D.trigger_id, _D.webhook_id).in_(keys))
        return await self._writer.execute(gone)

    async def refused(self, trigger_id: str) -> None:
        statement = (
            update(triggers).where(_T.trigger_id == trigger_id).values(refused=_T.refused + 1)
        )
        await self._writer.execute(statement)

    async def ids(self) -> builtins.list[str]:
        return [str(row[0]) for row in await self._rows(select(_T.trigger_id))]
