"""Telling every replica that a task was steered, so the one running it looks at once.

A steer is in the task's log before it is published (`agent.scheduling.steers`); the
replica running the task takes it at the run's next safe point whether or not the
message arrives (`agent.running.steering`). The message only spares the run from
waiting for the next sign in its own log.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol


class SteerBus(Protocol):
    async def publish(self, task_id: str) -> None:
        """Tell every replica (best effort)."""
        ...

    def subscribe(self) -> AsyncIterator[str]:
        """The id of every task steered from now on."""
        ...
