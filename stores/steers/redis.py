"""Steers published to every replica over Redis pub/sub."""

from __future__ import annotations

from collections.abc import AsyncIterator

import redis.asyncio as redis

from stores.redis import RedisSubscriptions
from stores.redis_channels import JsonChannel


class RedisSteerBus:
    """Redis pub/sub on `{prefix}steer` (`stores.redis_channels.JsonChannel`)."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "agentd:",
        subscriptions: RedisSubscriptions | None = None,
    ) -> None:
        self._channel = JsonChannel(client, f"{prefix}steer", subscriptions)

    async def publish(self, task_id: str) -> None:
        await self._channel.publish({"task_id": task_id})

    async def subscribe(self) -> AsyncIterator[str]:
        async for notice in self._channel.subscribe():
            task_id = notice.get("task_id")
            if isinstance(task_id, str):  # else not a steer
                yield task_id
