"""Leases of a single process: every lease is held, nothing is orphaned."""

from __future__ import annotations

from collections.abc import Collection

from stores.leases.base import new_replica_id


class InMemoryLeases:
    """One process, nothing shared: every lease is always held, nothing is orphaned."""

    shared = False

    def __init__(self, replica: str | None = None, ttl_seconds: float = 10.0) -> None:
        self.replica = replica or new_replica_id()
        self.ttl_seconds = ttl_seconds

    async def acquire(self, tenant: str, task_id: str) -> None:
        return

    async def renew(self, task_ids: Collection[str]) -> set[str]:
        return set()

    async def release(self, task_id: str) -> None:
        return

    async def finish(self, task_id: str) -> None:
        return

    async def claim_orphans(self, limit: int) -> list[tuple[str, str]]:
        return []
