"""API keys in this process (tests, and AGENTD_AUTH with no database)."""

from __future__ import annotations

import builtins
from dataclasses import replace
from datetime import UTC, datetime

from records.keys import ApiKey


class InMemoryKeyStore:
    def __init__(self) -> None:
        self._keys: dict[str, ApiKey] = {}

    async def add(self, key: ApiKey) -> None:
        self._keys[key.key_id] = key

    async def get(self, key_id: str) -> ApiKey | None:
        return self._keys.get(key_id)

    async def list(self) -> list[ApiKey]:
        return sorted(self._keys.values(), key=lambda k: k.created_at)

    async def held_by(self, tenant: str, principal: str) -> builtins.list[ApiKey]:
        held = [k for k in self._keys.values() if (k.tenant, k.principal) == (tenant, principal)]
        return sorted(held, key=lambda k: k.created_at)

    async def revoke(self, key_id: str) -> bool:
        key = self._keys.get(key_id)
        if key is None or not key.active:
            return False
        self._keys[key_id] = replace(key, revoked_at=datetime.now(UTC))
        return True
