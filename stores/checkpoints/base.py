"""Checkpoints: where a running task's progress is kept so another process can resume it.

A checkpoint is the task's state at the end of its last completed step
(the mode's own state: messages, plan, step results; the notes for a
partial answer; the tool-call journal; what the run needs to be rebuilt:
principal, token budget, deadline). It is written after every completed
step and before every tool call that may not be repeated, and deleted when
the task ends. The store treats it as opaque text; `records.checkpoints` gives it
its shape.
"""

from __future__ import annotations

from typing import Protocol


class CheckpointStore(Protocol):
    """Where checkpoints live. Each save replaces the task's previous checkpoint."""

    async def save(self, tenant: str, task_id: str, state: str) -> None:
        """Store `state` as the task's latest checkpoint."""
        ...

    async def load(self, tenant: str, task_id: str) -> str | None:
        """The latest checkpoint, or None (also for another tenant's task)."""
        ...

    async def delete(self, task_id: str) -> None:
        """Forget the task's checkpoint (the task ended). Idempotent."""
        ...
