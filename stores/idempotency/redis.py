"""Idempotency keys shared by replicas, reserved atomically in Redis."""

from __future__ import annotations

import json

import redis.asyncio as redis

from core.errors import IdempotencyConflictError


class RedisIdempotencyStore:
    """Keys as Redis strings (`SET NX PX`), shared by every replica."""

    def __init__(self, client: redis.Redis, prefix: str = "agentd:") -> None:
        self._redis = client
        self._prefix = f"{prefix}idem:"

    async def reserve(
        self, key: str, fingerprint: str, value: str, ttl_seconds: float
    ) -> str | None:
        body = json.dumps({"f": fingerprint, "v": value})
        name = self._prefix + key
        if await self._redis.set(name, body, nx=True, px=max(1, int(ttl_seconds * 1000))):
            return None
        stored = await self._redis.get(name)
        if stored is None:  # expired in between: try once more
            return await self.reserve(key, fingerprint, value, ttl_seconds)
        entry = json.loads(stored)
        if entry["f"] != fingerprint:
            raise IdempotencyConflictError(key)
        result: str = entry["v"]
        if result == value and value:
            return None  # our own reservation, seen again by a retried command
        return result

    async def store(self, key: str, fingerprint: str, value: str, ttl_seconds: float) -> None:
        body = json.dumps({"f": fingerprint, "v": value})
        await self._redis.set(self._prefix + key, body, px=max(1, int(ttl_seconds * 1000)))

    async def release(self, key: str) -> None:
        await self._redis.delete(self._prefix + key)
