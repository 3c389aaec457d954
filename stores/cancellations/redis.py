"""Cancellations published to every replica over Redis pub/sub."""

from __future__ import annotations

from collections.abc import AsyncIterator

import redis.asyncio as redis

from stores.redis import RedisSubscriptions
from stores.redis_channels import JsonChannel


class RedisCancelBus:
    """Redis pub/sub on `{prefix}cancel` (`stores.redis_channels.JsonChannel`)."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "agentd:",
        subscriptions: RedisSubscriptions | None = None,
    ) -> None:
        self._channel = JsonChannel(client, f"{prefix}cancel", subscriptions)

    async def publish(self, task_id: str, reason: str) -> None:
        await self._channel.publish({"task_id": task_id, "reason": reason})

    async def subscribe(self) -> AsyncIterator[tuple[str, str]]:
        async for notice in self._channel.subscribe():
            task_id = notice.get("task_id")
            if isinstance(task_id, str):  # else not a cancellation
                yield task_id, str(notice.get("reason") or "")
