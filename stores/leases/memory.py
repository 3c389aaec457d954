"""Leases of a single process: nothing is orphaned; parked tasks are claimed once woken."""

from __future__ import annotations

from collections.abc import Collection

from stores.leases.base import new_replica_id


class InMemoryLeases:
    """One process, nothing shared: every task it runs is held; a parked task is claimed
    (by `claim` or `claim_orphans`) once it is woken."""

    shared = False

    def __init__(self, replica: str | None = None, ttl_seconds: float = 10.0) -> None:
        self.replica = replica or new_replica_id()
        self.ttl_seconds = ttl_seconds
        self._active: dict[str, str] = {}
        """Task id -> tenant of every task not ended and not parked."""
        self._held: set[str] = set()
        self._parked: dict[str, str] = {}

    async def acquire(self, tenant: str, task_id: str) -> None:
        self._active[task_id] = tenant
        self._held.add(task_id)

    async def renew(self, task_ids: Collection[str]) -> set[str]:
        return {task_id for task_id in task_ids if task_id not in self._held}

    async def release(self, task_id: str) -> None:
        self._held.discard(task_id)

    async def finish(self, task_id: str) -> None:
        self._held.discard(task_id)
        self._active.pop(task_id, None)
        self._parked.pop(task_id, None)

    async def claim_orphans(self, limit: int) -> list[tuple[str, str]]:
        claimed: list[tuple[str, str]] = []
        for task_id, tenant in self._active.items():
            if len(claimed) >= limit:
                break
            if task_id not in self._held:
                claimed.append((tenant, task_id))
        self._held.update(task_id for _, task_id in claimed)
        return claimed

    async def park(self, tenant: str, task_id: str) -> None:
        self._held.discard(task_id)
        self._active.pop(task_id, None)
        self._parked[task_id] = tenant

    async def wake(self, task_id: str) -> bool:
        tenant = self._parked.pop(task_id, None)
        if tenant is None:
            return False
        self._active[task_id] = tenant
        return True

    async def claim(self, task_id: str) -> bool:
        if task_id not in self._active or task_id in self._held:
            return False
        self._held.add(task_id)
        return True
