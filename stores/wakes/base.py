"""Telling every replica that a parked task was woken and waits for a place.

The replica that wakes a task runs it when it has room; when it has none it publishes
the wake, and a replica with room claims it at once (`stores.leases.Leases.claim`).
Best effort: the takeover pass of every replica claims a woken task that nobody took.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol


class WakeBus(Protocol):
    async def publish(self, tenant: str, task_id: str) -> None:
        """Tell every replica (best effort)."""
        ...

    def subscribe(self) -> AsyncIterator[tuple[str, str]]:
        """(tenant, task id) of every wake published from now on."""
        ...
