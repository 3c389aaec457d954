"""Steers in a single process: there is no other replica."""

from __future__ import annotations

from collections.abc import AsyncIterator


class InMemorySteerBus:
    """One process: there is no other replica to tell (the run here is nudged directly)."""

    async def publish(self, task_id: str) -> None:
        return

    async def subscribe(self) -> AsyncIterator[str]:
        return
        yield  # pragma: no cover - an empty async generator
