"""Wakes published to every replica over Redis pub/sub."""

from __future__ import annotations

from collections.abc import AsyncIterator

import redis.asyncio as redis

from stores.redis import RedisSubscriptions
from stores.redis_channels import JsonChannel


class RedisWakeBus:
    """Redis pub/sub on `{prefix}wake` (`stores.redis_channels.JsonChannel`)."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "agentd:",
        subscriptions: RedisSubscriptions | None = None,
    ) -> None:
        self._channel = JsonChannel(client, f"{prefix}wake", subscriptions)

    async def publish(self, tenant: str, task_id: str) -> None:
        await self._channel.publish({"tenant": tenant, "task_id": task_id})

    async def subscribe(self) -> AsyncIterator[tuple[str, str]]:
        async for notice in self._channel.subscribe():
            tenant, task_id = notice.get("tenant"), notice.get("task_id")
            if isinstance(tenant, str) and isinstance(task_id, str):  # else not a wake
                yield tenant, task_id
