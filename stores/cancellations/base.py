"""Telling every replica that a task was cancelled, so the one running it stops at once.

A replica that receives CancelTask for a task it does not run ends the task
in the shared store and publishes the cancellation; the replica running it
cancels its in-flight model and tool calls when the message arrives.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol


class CancelBus(Protocol):
    async def publish(self, task_id: str, reason: str) -> None:
        """Tell every replica (best effort)."""
        ...

    def subscribe(self) -> AsyncIterator[tuple[str, str]]:
        """(task id, reason) for every cancellation published from now on."""
        ...
