"""Wakes in a single process: there is no other replica to tell."""

from __future__ import annotations

from collections.abc import AsyncIterator


class InMemoryWakeBus:
    """One process: a woken task it has no room for waits for its takeover pass."""

    async def publish(self, tenant: str, task_id: str) -> None:
        return

    async def subscribe(self) -> AsyncIterator[tuple[str, str]]:
        return
        yield  # pragma: no cover - an empty async generator
