"""Task history kept in this process (the embedded default, and tests)."""

from __future__ import annotations

from core.errors import TaskNotFoundError
from records.paging import Page, TimeCursor
from records.tasks import Task, TaskQuery
from stores.history.base import _matches, task_cursor


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

    async def list(self, query: TaskQuery) -> Page[Task, TimeCursor]:
        chosen = sorted(
            (t for t in self._tasks.values() if _matches(t, query)),
            key=lambda t: (t.created_at, t.task_id),
            reverse=True,
        )
        found = [t.snapshot() for t in chosen[: query.limit + 1]]
        return Page.cut(found, query.limit, task_cursor)

    async def close(self) -> None:
        return
