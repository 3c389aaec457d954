"""Checkpoints kept in this process: nothing outlives it."""

from __future__ import annotations


class InMemoryCheckpointStore:
    """Checkpoints in a dict: for one process, and for tests."""

    def __init__(self) -> None:
        self._states: dict[str, tuple[str, str]] = {}

    async def save(self, tenant: str, task_id: str, state: str) -> None:
        self._states[task_id] = (tenant, state)

    async def load(self, tenant: str, task_id: str) -> str | None:
        found = self._states.get(task_id)
        return found[1] if found is not None and found[0] == tenant else None

    async def delete(self, task_id: str) -> None:
        self._states.pop(task_id, None)
