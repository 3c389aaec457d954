"""Cached tool results shared by replicas, as Redis strings with a time to live."""

from __future__ import annotations

import redis.asyncio as redis

from stores.tool_cache.base import CachedResult, decode, encode, entry_name


class RedisToolCache:
    """One string per entry (`SET ... PX`) under the process's prefix; Redis expires it."""

    def __init__(self, client: redis.Redis, prefix: str = "agentd:") -> None:
        self._redis = client
        self._prefix = f"{prefix}toolcache:"

    def name(self, tenant: str, key: str) -> str:
        return self._prefix + entry_name(tenant, key)

    async def get(self, tenant: str, key: str) -> CachedResult | None:
        value: bytes | str | None = await self._redis.get(self.name(tenant, key))
        return decode(value)

    async def put(self, tenant: str, key: str, result: CachedResult, ttl_seconds: float) -> None:
        milliseconds = max(1, int(ttl_seconds * 1000))
        await self._redis.set(self.name(tenant, key), encode(result), px=milliseconds)
