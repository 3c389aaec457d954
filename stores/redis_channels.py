"""A Redis pub/sub channel of small JSON notices, told to every replica (best effort):
cancellations and wakes are sent through one."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as redis

from stores.redis import RedisSubscriptions


class JsonChannel:
    """`{prefix}{name}` on Redis pub/sub, received over the process's shared subscription
    connection (or a connection of its own when none is given)."""

    def __init__(
        self, client: redis.Redis, channel: str, subscriptions: RedisSubscriptions | None = None
    ) -> None:
        self._redis = client
        self._channel = channel
        self._subscriptions = subscriptions or RedisSubscriptions(client)

    async def publish(self, notice: dict[str, str]) -> None:
        await self._redis.publish(self._channel, json.dumps(notice))

    async def subscribe(self) -> AsyncIterator[dict[str, Any]]:
        """Each notice published from now on that is a JSON object; anything else is
        passed over."""
        received: asyncio.Queue[bytes] = asyncio.Queue()

        def deliver(data: bytes | None) -> None:
            if data is not None:
                received.put_nowait(data)

        stop = self._subscriptions.listen(self._channel, deliver)
        try:
            while True:
                data = await received.get()
                try:
                    notice = json.loads(data)
                except (ValueError, RecursionError):  # RecursionError: nested past parsing
                    continue
                if isinstance(notice, dict):
                    yield notice
        finally:
            stop()
