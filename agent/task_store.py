"""The task store interface.

A store keeps tasks by id, scoped by tenant: a task of another tenant is
reported exactly like a task that does not exist. Implementations are safe
to use from many asyncio tasks at once; each method is atomic with respect
to the others for one task. A terminal status is never overwritten.
"""

from __future__ import annotations

from typing import Protocol

from agent.tasks import Task, TaskStatus


class TaskStore(Protocol):
    """Where tasks live while they run (and, for durable stores, after)."""

    async def create(self, task: Task) -> None:
        """Store a new task. Raises ValueError if the id is taken."""
        ...

    async def get(self, tenant: str, task_id: str) -> Task:
        """The task, or TaskNotFoundError (also for another tenant's task)."""
        ...

    async def set_status(
        self, tenant: str, task_id: str, status: TaskStatus, *, detail: str = ""
    ) -> Task:
        """Move a task to `status` and return it.

        Raises TaskNotFoundError, or TaskAlreadyTerminalError when the task has ended.
        """
        ...
