"""The task store interface: tasks and their event logs.

A store keeps tasks by id, scoped by tenant: a task of another tenant is
reported exactly like a task that does not exist. Implementations are safe
to use from many asyncio tasks at once; each method is atomic with respect
to the others for one task. A terminal status is never overwritten.

Each task has an append-only event log. `append_event` assigns the next
sequence number (1, 2, 3, ...); `read_events` replays the log after a
sequence number and then follows it live, ending after the terminal event
(a `StatusChanged` to a terminal status, always the log's last event). A
reader reads at its own pace: a slow reader never makes the store buffer
for it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from records.events import EventPayload, TaskEvent
from records.tasks import Task, TaskStatus


class TaskStore(Protocol):
    """Where tasks and their events live."""

    async def create(self, task: Task) -> None:
        """Store a new task. Raises ValueError if the id is taken."""
        ...

    async def close(self) -> None:
        """Release connections; called once when the server stops."""
        ...

    async def get(self, tenant: str, task_id: str) -> Task:
        """The task, or TaskNotFoundError (also for another tenant's task)."""
        ...

    async def update(self, task: Task) -> None:
        """Replace a stored task's state, stamping `task.updated_at` (the caller's object
        as well as the stored state). Raises TaskAlreadyTerminalError when the stored
        task has ended (a late write never overwrites a terminal state)."""
        ...

    async def set_status(
        self, tenant: str, task_id: str, status: TaskStatus, *, detail: str = ""
    ) -> Task:
        """Move a task to `status` and return it.

        Raises TaskNotFoundError, or TaskAlreadyTerminalError when the task has ended.
        """
        ...

    async def append_event(self, task_id: str, trace_id: str, payload: EventPayload) -> TaskEvent:
        """Append to the task's log and return the event with its sequence number.

        The terminal event closes the log: a later append raises TaskAlreadyTerminalError.
        """
        ...

    def read_events(
        self, tenant: str, task_id: str, after_sequence: int = 0
    ) -> AsyncIterator[TaskEvent]:
        """Events after `after_sequence`, then live ones, until the terminal event.

        Raises TaskNotFoundError on first iteration for an unknown task.
        """
        ...


async def logged(
    store: TaskStore, tenant: str, task_id: str, after: int, through: int
) -> list[TaskEvent]:
    """The task's events after sequence `after` up to `through` (a `last_sequence` read
    before): what its log holds now, without waiting for more."""
    found: list[TaskEvent] = []
    if through <= after:
        return found
    events = store.read_events(tenant, task_id, after)
    try:
        async for event in events:
            found.append(event)
            if event.sequence >= through:
                break
    finally:
        close = getattr(events, "aclose", None)
        if close is not None:
            await close()
    return found
