"""Push-notification configs: where a task's A2A updates are POSTed, and how far they
have been delivered.

Lifecycle and concurrency: a config is put (created or replaced) by its task's caller
and deleted by them. Delivery is claimed by one replica at a time (`claim`: configs not
finished whose claim is free or expired, each now held by the replica until a time); the
holder reads the task's durable event log after `delivered_through`, POSTs each update,
then `advance`s the cursor (which also renews its claim) only while it still holds the
claim. A replica that dies stops renewing; its configs are claimed again once their
claims expire, and delivery resumes after the cursor: at least once, in order, the same
event id on a repeat. A finished config (its task's last event delivered) is never
claimed again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from records.push_configs import PushConfig


class PushConfigStore(Protocol):
    async def put(self, config: PushConfig, now: datetime) -> None:
        """Create the config, or replace the one of the same ids (its cursor kept)."""
        ...

    async def get(self, tenant: str, task_id: str, config_id: str) -> PushConfig | None: ...

    async def of_task(self, tenant: str, task_id: str) -> list[PushConfig]:
        """The task's configs, by id."""
        ...

    async def delete(self, tenant: str, task_id: str, config_id: str) -> bool:
        """False when there was no such config."""
        ...

    async def claim(
        self, replica: str, now: datetime, until: datetime, limit: int
    ) -> list[PushConfig]:
        """Up to `limit` unfinished configs whose claim is free or expired at `now`, each
        now claimed by `replica` until `until`."""
        ...

    async def advance(
        self, config: PushConfig, replica: str, through: int, finished: bool, until: datetime
    ) -> bool:
        """Move the cursor to `through` (and mark it finished) and renew the claim until
        `until`, only if `replica` still holds it; False when it does not (any more)."""
        ...

    async def release(self, config: PushConfig, replica: str) -> None:
        """Give up the claim (on shutdown): another replica may take it at once."""
        ...
