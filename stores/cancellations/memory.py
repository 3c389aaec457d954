"""Cancellations in a single process: there is no other replica."""

from __future__ import annotations

from collections.abc import AsyncIterator


class InMemoryCancelBus:
    """One process: there is no other replica to tell."""

    async def publish(self, task_id: str, reason: str) -> None:
        return

    async def subscribe(self) -> AsyncIterator[tuple[str, str]]:
        return
        yield  # pragma: no cover - an empty async generator
