"""Wakes published to every replica over Redis pub/sub."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import redis.asyncio as redis

from stores.redis import RedisSubscriptions


class RedisWakeBus:
    """Redis pub/sub on `{prefix}wake`, received over the process's shared subscription
    connection (or a connection of its own when none is given)."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "agentd:",
        subscriptions: RedisSubscriptions | None = None,
    ) -> None:
        self._redis = client
        self._channel = f"{prefix}wake"
        self._subscriptions = subscriptions or RedisSubscriptions(client)

    async def publish(self, tenant: str, task_id: str) -> None:
        await self._redis.publish(self._channel, json.dumps({"tenant": tenant, "task_id": task_id}))

    async def subscribe(self) -> AsyncIterator[tuple[str, str]]:
        received: asyncio.Queue[bytes] = asyncio.Queue()

        def deliver(data: bytes | None) -> None:
            if data is not None:
                received.put_nowait(data)

        stop = self._subscriptions.listen(self._channel, deliver)
        try:
            while True:
                data = await received.get()
                try:
                    body = json.loads(data)
                    yield str(body["tenant"]), str(body["task_id"])
                except (ValueError, KeyError, TypeError, RecursionError):
                    continue  # not a wake
        finally:
            stop()
