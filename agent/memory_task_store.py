"""An in-process task store: the embedded default, and the reference for the contract tests."""

from __future__ import annotations

import asyncio
import copy

from agent.tasks import StopReason, Task, TaskStatus, utcnow
from core.errors import TaskAlreadyTerminalError, TaskNotFoundError


class InMemoryTaskStore:
    """Keeps tasks in a dict; returns copies so callers never share state."""

    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}
        self._lock = asyncio.Lock()

    async def create(self, task: Task) -> None:
        async with self._lock:
            if task.task_id in self._tasks:
                raise ValueError(f"task id {task.task_id!r} is taken")
            self._tasks[task.task_id] = copy.deepcopy(task)

    async def get(self, tenant: str, task_id: str) -> Task:
        task = self._tasks.get(task_id)
        if task is None or task.tenant != tenant:
            raise TaskNotFoundError(task_id)
        return copy.deepcopy(task)

    async def set_status(
        self, tenant: str, task_id: str, status: TaskStatus, *, detail: str = ""
    ) -> Task:
        async with self._lock:
            task = self._tasks.get(task_id)
            if task is None or task.tenant != tenant:
                raise TaskNotFoundError(task_id)
            if task.status.terminal:
                raise TaskAlreadyTerminalError(task_id, task.status.value)
            task.status = status
            if status is TaskStatus.CANCELLED:
                task.stop_reason = StopReason.CANCELLED
                task.stop_detail = detail
            task.updated_at = utcnow()
            return copy.deepcopy(task)
