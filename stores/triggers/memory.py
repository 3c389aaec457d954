"""TriggerStore in this process (tests, and servers without a database)."""

from __future__ import annotations

import asyncio
import builtins
from dataclasses import replace
from datetime import datetime

from records.paging import Page, TimeKeyCursor
from records.triggers import Trigger


def cursor_of(trigger: Trigger) -> TimeKeyCursor:
    assert trigger.created_at is not None
    return TimeKeyCursor(trigger.created_at, trigger.trigger_id, "")


class InMemoryTriggerStore:
    def __init__(self) -> None:
        self._triggers: dict[str, Trigger] = {}
        self._deliveries: dict[tuple[str, str], tuple[str, datetime]] = {}
        """The task each `(trigger, webhook-id)` started, and when it was kept."""
        self._lock = asyncio.Lock()

    async def create(self, trigger: Trigger) -> None:
        self._triggers[trigger.trigger_id] = trigger

    async def get(self, tenant: str, trigger_id: str) -> Trigger | None:
        found = self._triggers.get(trigger_id)
        return found if found is not None and found.tenant == tenant else None

    async def find(self, trigger_id: str) -> Trigger | None:
        return self._triggers.get(trigger_id)

    async def list(
        self, tenant: str, limit: int, after: TimeKeyCursor | None = None
    ) -> Page[Trigger, TimeKeyCursor]:
        mine = sorted(
            (t for t in self._triggers.values() if t.tenant == tenant),
            key=lambda t: (t.created_at, t.trigger_id),
        )
        if after is not None:
            mine = [
                t for t in mine if (t.created_at, t.trigger_id) > (after.created_at, after.item_id)
            ]
        return Page.cut(mine[: limit + 1], limit, cursor_of)

    async def delete(self, tenant: str, trigger_id: str) -> bool:
        if await self.get(tenant, trigger_id) is None:
            return False
        del self._triggers[trigger_id]
        for key in [key for key in self._deliveries if key[0] == trigger_id]:
            del self._deliveries[key]
        return True

    async def rotate(
        self, tenant: str, trigger_id: str, secret: str, previous: str, until: datetime
    ) -> bool:
        found = await self.get(tenant, trigger_id)
        if found is None:
            return False
        self._triggers[trigger_id] = replace(
            found, secret=secret, previous_secret=previous, previous_until=until
        )
        return True

    async def delivery(self, trigger_id: str, webhook_id: str) -> str | None:
        kept = self._deliveries.get((trigger_id, webhook_id))
        return kept[0] if kept is not None else None

    async def delivered(self, trigger_id: str, webhook_id: str, task_id: str, at: datetime) -> str:
        async with self._lock:
            kept = self._deliveries.get((trigger_id, webhook_id))
            if kept is not None:
                return kept[0]
            self._deliveries[(trigger_id, webhook_id)] = (task_id, at)
            found = self._triggers.get(trigger_id)
            if found is not None:
                counted = found.deliveries + 1
                self._triggers[trigger_id] = replace(found, deliveries=counted, last_delivery_at=at)
            return task_id

    name = "trigger deliveries"

    async def sweep(self, before: datetime, limit: int) -> int:
        old = sorted((at, key) for key, (_, at) in self._deliveries.items() if at < before)
        for _, key in old[:limit]:
            del self._deliveries[key]
        return len(old[:limit])

    async def refused(self, trigger_id: str) -> None:
        found = self._triggers.get(trigger_id)
        if found is not None:
            self._triggers[trigger_id] = replace(found, refused=found.refused + 1)

    async def ids(self) -> builtins.list[str]:
        return sorted(self._triggers)
