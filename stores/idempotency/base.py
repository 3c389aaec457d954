"""Idempotency keys: the same key with the same request gives the same outcome.

A key is reserved once, atomically, together with a fingerprint of the
request and a value (a task id, or a tool result once there is one). A
second request with the same key gets the stored value back; with a
different fingerprint it is refused with IdempotencyConflictError. Keys
expire after their time to live. Implementations are safe across tasks
(memory) or across processes (Redis).
"""

from __future__ import annotations

from typing import Protocol

from core.errors import FieldViolation, InvalidArgumentError

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
