"""Idempotency keys in this process, with their time to live."""

from __future__ import annotations

import time

from core.errors import IdempotencyConflictError


class InMemoryIdempotencyStore:
    def __init__(self) -> None:
        self._entries: dict[str, tuple[str, str, float]] = {}

    async def reserve(
        self, key: str, fingerprint: str, value: str, ttl_seconds: float
    ) -> str | None:
        now = time.monotonic()
        entry = self._entries.get(key)
        if entry is not None and entry[2] > now:
            if entry[0] != fingerprint:
                raise IdempotencyConflictError(key)
            return entry[1]
        self._entries[key] = (fingerprint, value, now + ttl_seconds)
        return None

    async def store(self, key: str, fingerprint: str, value: str, ttl_seconds: float) -> None:
        self._entries[key] = (fingerprint, value, time.monotonic() + ttl_seconds)

    async def release(self, key: str) -> None:
        self._entries.pop(key, None)
