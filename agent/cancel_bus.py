"""Telling every replica that a task was cancelled, so the one running it stops at once.

A replica that receives CancelTask for a task it does not run ends the task
in the shared store and publishes the cancellation; the replica running it
cancels its in-flight model and tool calls when the message arrives.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Protocol

import redis.asyncio as redis


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
    """Redis pub/sub on `{prefix}cancel`."""

    def __init__(self, client: redis.Redis, prefix: str = "agentd:") -> None:
        self._redis = client
        self._channel = f"{prefix}cancel"

    async def publish(self, task_id: str, reason: str) -> None:
        await self._redis.publish(self._channel, json.dumps({"task_id": task_id, "reason": reason}))

    async def subscribe(self) -> AsyncIterator[tuple[str, str]]:
        pubsub = self._redis.pubsub()
        await pubsub.subscribe(self._channel)
        try:
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                try:
                    body = json.loads(message["data"])
                    yield str(body["task_id"]), str(body.get("reason", ""))
                except (ValueError, KeyError, TypeError):
                    continue
        finally:
            await pubsub.aclose()  # type: ignore[no-untyped-call]
