"""Idempotency keys: the same key with the same request gives the same outcome.

A key is reserved once, atomically, together with a fingerprint of the
request and a value (a task id, or a tool result once there is one). A
second request with the same key gets the stored value back; with a
different fingerprint it is refused with IdempotencyConflictError. Keys
expire after their time to live. Implementations are safe across tasks
(memory) or across processes (Redis).
"""

from __future__ import annotations

import json
import time
from typing import Protocol

import redis.asyncio as redis

from core.errors import FieldViolation, IdempotencyConflictError, InvalidArgumentError

MAX_KEY_LENGTH = 128


def scoped_key(kind: str, tenant: str, principal: str, key: str) -> str:
    """The stored name of a caller's key; InvalidArgumentError when the key is too long."""
    if len(key) > MAX_KEY_LENGTH:
        raise InvalidArgumentError(
            [FieldViolation("idempotency_key", f"is longer than {MAX_KEY_LENGTH} characters")]
        )
    return "\x1f".join((kind, tenant, principal, key))


class IdempotencyStore(Protocol):
    async def reserve(
        self, key: str, fingerprint: str, value: str, ttl_seconds: float
    ) -> str | None:
        """Reserve `key` with `value`: None when reserved now, else the value already stored.

        Raises IdempotencyConflictError when the key was reserved for another fingerprint.
        """
        ...

    async def store(self, key: str, fingerprint: str, value: str, ttl_seconds: float) -> None:
        """Replace the value of a key this caller reserved."""
        ...

    async def release(self, key: str) -> None:
        """Forget a key (the reserved work was refused, so a retry may try again)."""
        ...


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
