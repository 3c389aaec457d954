"""Where triggers and their deliveries are kept.

A trigger is a tenant's: every read and change names the tenant, except `find`, which
the delivery door uses to learn the trigger (and its tenant) from the id in its URL.
`delivered` is the idempotency across replicas: the first `(trigger, webhook-id)` kept
wins, and every later call (a delivery sent again, or the same delivery on another
replica) is answered the task id kept first. Calls are safe concurrently.
"""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Protocol

from records.paging import Page, TimeKeyCursor
from records.triggers import Trigger


class TriggerStore(Protocol):
    async def create(self, trigger: Trigger) -> None:
        """Keep a new trigger (its id is new)."""
        ...

    async def get(self, tenant: str, trigger_id: str) -> Trigger | None: ...

    async def find(self, trigger_id: str) -> Trigger | None:
        """The trigger of that id, whatever its tenant (the delivery door's lookup)."""
        ...

    async def list(
        self, tenant: str, limit: int, after: TimeKeyCursor | None = None
    ) -> Page[Trigger, TimeKeyCursor]:
        """The tenant's triggers, oldest first."""
        ...

    async def delete(self, tenant: str, trigger_id: str) -> bool:
        """Forget the trigger and its deliveries; False when there was none."""
        ...

    async def rotate(
        self, tenant: str, trigger_id: str, secret: str, previous: str, until: datetime
    ) -> bool:
        """Replace its sealed secret with `secret`, keeping `previous` until `until`;
        False when there is no such trigger."""
        ...

    async def delivery(self, trigger_id: str, webhook_id: str) -> str | None:
        """The task a delivery started, when it was kept."""
        ...

    async def delivered(self, trigger_id: str, webhook_id: str, task_id: str, at: datetime) -> str:
        """Keep that the delivery started `task_id` (counted once) unless it was kept
        already; the task id kept first."""
        ...

    name: str
    """What its sweep deletes, for the retention log (`trigger deliveries`)."""

    async def sweep(self, before: datetime, limit: int) -> int:
        """Delete at most `limit` deliveries kept before `before`, oldest first (retention,
        `stores.retention.base.Expiring`); how many went. A delivery is needed only while
        its timestamp could still pass the window and the engine's idempotency key lives;
        a trigger's counters stay."""
        ...

    async def refused(self, trigger_id: str) -> None:
        """Count a refused delivery."""
        ...

    async def ids(self) -> builtins.list[str]:
        """Every trigger's id (tests and maintenance)."""
        ...
