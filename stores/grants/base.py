"""Where grants are kept. The grant record itself is `records.tools.grants.Grant`."""

from __future__ import annotations

from typing import Protocol

from records.tools.grants import Grant


class GrantStore(Protocol):
    """Where grants are kept (SQL in production, a list in tests)."""

    async def add(self, grant: Grant) -> None: ...

    async def revoke(self, grant_id: str) -> bool:
        """Revoke a live grant; False when there is none with that id."""
        ...

    async def list(
        self, tenant: str | None = None, *, include_revoked: bool = False
    ) -> list[Grant]:
        """Grants, oldest first."""
        ...
