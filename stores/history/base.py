"""Task history: every task's record, kept after the live store lets it go.

`record` is called when a task is accepted to wait for a slot, or as it starts
running when it took one at once, and when it ends (recording the same state
twice is harmless; a row may lag an unfinished task's live state, which
ListTasks reads, `agent.scheduling.listing`); `get` answers for a
tenant's own tasks only; `list` returns a page of a caller's tasks, newest
first, after the query's cursor, with the cursor of the next page when more
follow.
"""

from __future__ import annotations

from typing import Protocol

from records.paging import Page, TimeCursor
from records.tasks import Task, TaskQuery


def task_cursor(task: Task) -> TimeCursor:
    """Where a page ending at `task` ends, in a list newest first."""
    return TimeCursor(task.created_at, task.task_id)


def _matches(task: Task, query: TaskQuery) -> bool:
    return (
        task.tenant == query.tenant
        and task.owner == query.owner
        and (not query.statuses or task.status in query.statuses)
        and (query.created_after is None or task.created_at >= query.created_after)
        and (query.created_before is None or task.created_at < query.created_before)
        and (query.after is None or _before(task, query.after))
        and all(task.labels.get(key) == value for key, value in query.labels.items())
        and _runs_as(task, query)
        and (not query.conversation_id or task.conversation_id == query.conversation_id)
        and (not query.parent_task_id or task.parent_task_id == query.parent_task_id)
    )


def _before(task: Task, after: TimeCursor) -> bool:
    """Whether `task` comes after the cursor in a list newest first (ties by id)."""
    return (task.created_at, task.task_id) < (after.created_at, after.item_id)


def _runs_as(task: Task, query: TaskQuery) -> bool:
    if not query.agent:
        return True
    return (
        task.agent is not None
        and task.agent.agent_id == query.agent
        and (query.agent_version is None or task.agent.version == query.agent_version)
    )


class TaskHistory(Protocol):
    async def record(self, task: Task) -> None:
        """Store (or replace) the final state of a finished task."""
        ...

    async def get(self, tenant: str, task_id: str) -> Task:
        """A finished task, or TaskNotFoundError (also for another tenant's)."""
        ...

    async def list(self, query: TaskQuery) -> Page[Task, TimeCursor]:
        """A page of `query.limit` tasks after `query.after`, newest first (ties by task
        id, descending); its next cursor is its last task's when more follow."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...
