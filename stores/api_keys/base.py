"""Where API keys are kept. The key record itself is `records.keys.ApiKey`."""

from __future__ import annotations

import builtins
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

    async def held_by(self, tenant: str, principal: str) -> builtins.list[ApiKey]:
        """The keys (active or revoked) `principal` holds in `tenant`, oldest first: what
        a stored principal's standing is resolved from, without listing every key."""
        ...

    async def revoke(self, key_id: str) -> bool:
        """Revoke an active key; False when there is no such active key."""
        ...
