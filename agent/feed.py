"""A task's events as a caller follows them (Execute, StreamTaskEvents): from the live log,
and when the live store no longer holds the task, what its history says of the events
asked for (none left, or expired)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from core.errors import EventsExpiredError, TaskNotFoundError
from records.events import TaskEvent
from stores.history.base import TaskHistory
from stores.tasks.base import TaskStore


class TaskFeed:
    def __init__(self, tasks: TaskStore, history: TaskHistory) -> None:
        self._tasks = tasks
        self._history = history

    def live(self, tenant: str, task_id: str, after: int = 0) -> AsyncIterator[TaskEvent]:
        """The task's events after sequence `after`, then each new one until it ends."""
        return self._tasks.read_events(tenant, task_id, after)

    async def resumed(self, tenant: str, task_id: str, after: int) -> AsyncIterator[TaskEvent]:
        """`live`, for a caller coming back: a task gone from the live store ends the
        feed at once when the caller has every event it had, else EventsExpiredError
        (TaskNotFoundError when the history does not know it either)."""
        events = self.live(tenant, task_id, after)
        try:
            first = await anext(events)
        except StopAsyncIteration:
            return
        except TaskNotFoundError:  # gone from the live store: known to the history?
            task = await self._history.get(tenant, task_id)
            if task.last_sequence <= after:
                return  # the caller already has every event there was
            raise EventsExpiredError(task_id, task.last_sequence) from None
        yield first
        async for event in events:
            yield event
