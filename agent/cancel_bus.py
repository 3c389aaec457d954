"""Telling every replica that a task was cancelled, so the one running it stops at once.

A replica that receives CancelTask for a task it does not run ends the task
in the shared store and publishes the cancellation; the replica running it
cancels its in-flight model and tool calls when the message arrives.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Protocol

import redis.asyncio as redis

from agent.redis_connections import RedisSubscriptions


class CancelBus(Protocol):
    async def publish(self, task_id: str, reason: str) -> None:
        """Tell every replica (best effort)."""
        ...

    def subscribe(self) -> AsyncIterator[tuple[str, str]]:
        """(task id, reason) for every cancellation published from now on."""
        ...


class LocalCancelBus:
    """One process: there is no other replica to tell."""

    async def publish(self, task_id: str, reason: str) -> None:
        return

    async def subscribe(self) -> AsyncIterator[tuple[str, str]]:
        return
        yield  # pragma: no cover - an empty async generator


class RedisCancelBus:
    """Redis pub/sub on `{prefix}cancel`, received over the process's shared subscription
    connection (or a connection of its own when none is given)."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "agentd:",
        subscriptions: RedisSubscriptions | None = None,
    ) -> None:
        self._redis = client
        self._channel = f"{prefix}cancel"
        self._subscriptions = subscriptions or RedisSubscriptions(client)

    async def publish(self, task_id: str, reason: str) -> None:
        await self._redis.publish(self._channel, json.dumps({"task_id": task_id, "reason": reason}))

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
                    yield str(body["task_id"]), str(body.get("reason", ""))
                except (ValueError, KeyError, TypeError):
                    continue
        finally:
            stop()
