"""Cached tool results in this process: a bounded LRU whose entries expire."""

from __future__ import annotations

import time
from collections import OrderedDict

from stores.tool_cache.base import CachedResult, decode, encode, entry_name


class InMemoryToolCache:
    """At most `capacity` entries; the least recently used go first when it is full.
    Values are kept encoded, as in Redis, so that a caller cannot change a cached
    result through the object it got back."""

    def __init__(self, capacity: int = 10_000) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._entries: OrderedDict[str, tuple[str, float]] = OrderedDict()

    async def get(self, tenant: str, key: str) -> CachedResult | None:
        name = entry_name(tenant, key)
        entry = self._entries.get(name)
        if entry is None:
            return None
        if entry[1] <= time.monotonic():
            del self._entries[name]
            return None
        self._entries.move_to_end(name)
        return decode(entry[0])

    async def put(self, tenant: str, key: str, result: CachedResult, ttl_seconds: float) -> None:
        self.put_raw(tenant, key, encode(result), ttl_seconds)

    def put_raw(self, tenant: str, key: str, value: str, ttl_seconds: float) -> None:
        """Store an encoded value as it is (tests store damaged ones)."""
        name = entry_name(tenant, key)
        self._entries[name] = (value, time.monotonic() + ttl_seconds)
        self._entries.move_to_end(name)
        while len(self._entries) > self._capacity:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
