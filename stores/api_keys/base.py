"""Where API keys are kept. The key record itself is `records.keys.ApiKey`."""

from __future__ import annotations

from typing import Protocol

from records.keys import ApiKey


class KeyStore(Protocol):
    async def add(self, key: ApiKey) -> None:
        """Store a new key."""
        ...

    async def get(self, key_id: str) -> ApiKey | None:
        """The key (active or revoked), or None."""
        ...

    async def list(self) -> list[ApiKey]:
        """Every key, oldest first."""
        ...

    async def revoke(self, key_id: str) -> bool:
        """Revoke an active key; False when there is no such active key."""
        ...
