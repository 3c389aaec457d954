"""Grants in this process."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from records.tools.grants import Grant


class InMemoryGrantStore:
    def __init__(self, grants: list[Grant] | None = None) -> None:
        self._grants: dict[str, Grant] = {g.grant_id: g for g in grants or []}

    async def add(self, grant: Grant) -> None:
        self._grants[grant.grant_id] = grant

    async def revoke(self, grant_id: str) -> bool:
        grant = self._grants.get(grant_id)
        if grant is None or grant.revoked_at is not None:
            return False
        self._grants[grant_id] = replace(grant, revoked_at=datetime.now(UTC))
        return True

    async def list(
        self, tenant: str | None = None, *, include_revoked: bool = False
    ) -> list[Grant]:
        return [
            g
            for g in sorted(self._grants.values(), key=lambda g: g.created_at)
            if (tenant is None or g.tenant == tenant) and (include_revoked or g.revoked_at is None)
        ]
