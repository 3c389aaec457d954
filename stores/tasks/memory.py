"""An in-process task store: the embedded default, and the reference for the contract tests."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator

from core.errors import TaskAlreadyTerminalError, TaskNotFoundError
from records.events import EventPayload, TaskEvent
from records.tasks import Task, TaskStatus, utcnow


class InMemoryTaskStore:
    """Keeps tasks and event logs in dicts; returns copies so callers never share state.

    A finished task and its log are dropped `retention_seconds` after its
    terminal event (None keeps them for the store's life), as the Redis
    store's keys expire: the task history keeps its final state.
    """

    def __init__(self, retention_seconds: float | None = None) -> None:
        self._tasks: dict[str, Task] = {}
        self._events: dict[str, list[TaskEvent]] = {}
        self._changed: dict[str, asyncio.Condition] = {}
        self._lock = asyncio.Lock()
        self._retention = retention_seconds
        self._expiries: dict[str, asyncio.TimerHandle] = {}

    async def close(self) -> None:
        for handle in self._expiries.values():
            handle.cancel()
        self._expiries.clear()

    def _expire(self, task_id: str) -> None:
        self._expiries.pop(task_id, None)
        self._tasks.pop(task_id, None)
        self._events.pop(task_id, None)
        self._changed.pop(task_id, None)

    def _find(self, tenant: str, task_id: str) -> Task:
        task = self._tasks.get(task_id)
        if task is None or task.tenant != tenant:
            raise TaskNotFoundError(task_id)
        return task

    async def create(self, task: Task) -> None:
        async with self._lock:
            if task.task_id in self._tasks:
                raise ValueError(f"task id {task.task_id!r} is taken")
            self._tasks[task.task_id] = task.snapshot()
            self._events[task.task_id] = []

    async def get(self, tenant: str, task_id: str) -> Task:
        return self._find(tenant, task_id).snapshot()

    async def update(self, task: Task) -> None:
        async with self._lock:
            stored = self._find(task.tenant, task.task_id)
            if stored.status.terminal:
                raise TaskAlreadyTerminalError(task.task_id, stored.status.value)
            task.updated_at = utcnow()  # the caller's copy too: its history row agrees
            updated = task.snapshot()
            updated.last_sequence = stored.last_sequence
            self._tasks[task.task_id] = updated

    async def set_status(
        self, tenant: str, task_id: str, status: TaskStatus, *, detail: str = ""
    ) -> Task:
        async with self._lock:
            task = self._find(tenant, task_id)
            task.move_to(status, detail)
            return task.snapshot()

    async def append_event(self, task_id: str, trace_id: str, payload: EventPayload) -> TaskEvent:
        log = self._events.get(task_id)
        if log is None:
            raise TaskNotFoundError(task_id)
        # No await from here to the append: atomic with respect to every other call.
        if log and log[-1].terminal:
            raise TaskAlreadyTerminalError(task_id, "ended")
        event = TaskEvent(task_id, len(log) + 1, utcnow(), trace_id, payload)
        log.append(event)
        self._tasks[task_id].last_sequence = event.sequence
        if event.terminal and self._retention is not None:
            self._expiries[task_id] = asyncio.get_running_loop().call_later(
                self._retention, self._expire, task_id
            )
        condition = self._changed.get(task_id)  # made by the first reader that waits
        if condition is not None:
            async with condition:
                condition.notify_all()
        return event

    async def read_events(
        self, tenant: str, task_id: str, after_sequence: int = 0
    ) -> AsyncIterator[TaskEvent]:
        self._find(tenant, task_id)
        log = self._events[task_id]
        condition = self._changed.setdefault(task_id, asyncio.Condition())
        position = after_sequence
        while True:
            if position < len(log):
                event = log[position]
                position += 1
                yield event
                if event.terminal:
                    return
                continue
            if log and log[-1].terminal:
                return
            async with condition:
                await condition.wait_for(functools.partial(_grown, log, position))


def _grown(log: list[TaskEvent], seen: int) -> bool:
    return len(log) > seen
