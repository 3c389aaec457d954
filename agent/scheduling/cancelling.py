"""CancelTask: stop a task's model and tool calls wherever it runs, keep its partial
results, end it CANCELLED, and cancel its children that still run."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog

from agent.running.lifecycle import Endings
from agent.scheduling.execution import Runner
from agent.scheduling.parking import Parking
from core.errors import TaskAlreadyTerminalError, TaskNotFoundError
from records.tasks import Task, TaskStatus
from stores.cancellations.base import CancelBus
from stores.history.base import TaskHistory
from stores.tasks.base import TaskStore

log = structlog.get_logger(__name__)

CancelQuietly = Callable[[str, str, str], Awaitable[None]]
"""Cancels a task unless it ended already: (tenant, task id, reason)."""


class Cancelling:
    """Ends tasks CANCELLED, here or on the replica that runs them."""

    def __init__(
        self,
        store: TaskStore,
        history: TaskHistory,
        runner: Runner,
        endings: Endings,
        parking: Parking,
        bus: CancelBus,
        cancel_quietly: CancelQuietly,
    ) -> None:
        self._store = store
        self._history = history
        self._runner = runner
        self._endings = endings
        self._parking = parking
        self._bus = bus
        self._cancel_quietly = cancel_quietly

    async def cancel(self, tenant: str, task_id: str, reason: str) -> Task:
        """Cancel a task: stop its model and tool calls, keep partial results, end it CANCELLED.

        A task the live store has let go is looked up in the history, as GetTask does, so
        a finished task answers TaskAlreadyTerminalError before and after a restart alike."""
        try:
            task = await self._store.get(tenant, task_id)
        except TaskNotFoundError:
            return await self._let_go(tenant, task_id, reason)
        if task.status.terminal:
            raise TaskAlreadyTerminalError(task_id, task.status.value)
        runner = self._runner.cancel(task_id, reason)
        if runner is not None:
            await asyncio.wait({runner}, timeout=5)
            task = await self._store.get(tenant, task_id)
        if not task.status.terminal:
            # Not running here (parked, or elsewhere), or cancelled before its coroutine
            # ever started: end it in the store.
            try:
                task = await self._endings.cancel_stored(task, reason)
            except TaskAlreadyTerminalError:
                return await self._store.get(tenant, task_id)
            finally:
                self._runner.forget_cancel(task_id)
            await self._parking.forget(task_id)  # a parked task: nothing of it stays
            try:
                await self._bus.publish(task_id, reason)  # the replica running it stops now
            except Exception:
                log.exception("could not publish a cancellation", task_id=task_id)
        for child in task.children:  # none waits for its children any more
            if not child.status.terminal:
                await self._cancel_quietly(tenant, child.task_id, "its parent task was cancelled")
        return task

    async def _let_go(self, tenant: str, task_id: str, reason: str) -> Task:
        """Cancel a task only the history knows (TaskNotFoundError when it does not): an
        ended one is TaskAlreadyTerminalError; one whose row was left unfinished by a
        process that stopped with its live state (the in-process store) ends CANCELLED
        in the history, the only place it still is."""
        task = await self._history.get(tenant, task_id)
        if task.status.terminal:
            raise TaskAlreadyTerminalError(task_id, task.status.value)
        task.move_to(TaskStatus.CANCELLED, reason)
        await self._history.record(task)
        return task
