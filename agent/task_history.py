"""Task history: finished tasks, kept after the live store lets them go.

`record` is called once when a task ends (and again, harmlessly, if a
replica records the same end); `get` answers for a tenant's own tasks only.
"""

from __future__ import annotations

from typing import Protocol

from agent.tasks import Task
from core.errors import TaskNotFoundError


class TaskHistory(Protocol):
    async def record(self, task: Task) -> None:
        """Store (or replace) the final state of a finished task."""
        ...

    async def get(self, tenant: str, task_id: str) -> Task:
        """A finished task, or TaskNotFoundError (also for another tenant's)."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


class InMemoryTaskHistory:
    """History in a dict, for tests and single-process use without a database."""

    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}

    async def record(self, task: Task) -> None:
        self._tasks[task.task_id] = task.snapshot()

    async def get(self, tenant: str, task_id: str) -> Task:
        task = self._tasks.get(task_id)
        if task is None or task.tenant != tenant:
            raise TaskNotFoundError(task_id)
        return task.snapshot()

    async def close(self) -> None:
        return
