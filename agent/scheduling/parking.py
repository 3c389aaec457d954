"""Parking: a task that waits holds no running place, and wakes on any replica.

When a run raises `agent.parked.Parked` (its calls wait for a person, children, a remote
agent, ResumeTask; or its turn in a conversation), the runner ends its turn and hands it
here: the task's state says what it waits for (INPUT_REQUIRED while a person is
needed), its checkpoint is written with the state the woken run picks up from, and it
is parked in the leases (`stores.leases`: no lease, never claimed as an orphan). Nothing
of it stays in the process. Its wait records (`records.waits`) were opened by the calls.

Whatever ends a wait writes it first (an answer, a child's end, an expiry), then wakes
the task (`wake`): it is active again, and the first replica to claim it resumes it
through the normal admission — this one when it has room, else any other, told at once
(`stores.wakes`), else the takeover pass. A wake that comes while the task is still
parking finds it not parked yet; the task, once parked, looks at its waits once more and
wakes itself when one moved on. No poll per waiting call: the periodic pass
(`agent.scheduling.waking`) only fires deadlines and catches wakes that were lost.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import structlog

from agent.failures import LostAtRestartError
from agent.parked import Parked
from agent.running import lifecycle
from agent.running.run import TaskRun
from core.errors import ApprovalNotPendingError, TaskNotFoundError
from records import serialization
from records.tasks import Task, TaskFailure, TaskStatus
from records.waits import WaitKind, WaitState
from stores.checkpoints.base import CheckpointStore
from stores.history.base import TaskHistory
from stores.leases.base import Leases
from stores.waits.base import WaitStore
from stores.wakes.base import WakeBus

log = structlog.get_logger(__name__)

BATCH = 200
"""Tasks read at a time when ending those a restart lost."""

Resume = Callable[[str, str], Awaitable[bool]]
"""Runs a claimed task here (tenant, task id); False when there is no room (the claim
is then given back)."""


class Parking:
    """Parks this process's waiting runs and wakes parked tasks of any replica."""

    def __init__(
        self, leases: Leases, waits: WaitStore, checkpoints: CheckpointStore, bus: WakeBus
    ) -> None:
        self.leases = leases
        self.waits = waits
        self.checkpoints = checkpoints
        self.bus = bus
        self.resume: Resume | None = None
        """Runs a woken task here (the takeover's); None: this process runs no tasks."""

    async def park(self, run: TaskRun, parked: Parked) -> None:
        """Park `run`'s task: its status, its checkpoint, its lease given up; woken at once
        when what it waits for moved on while it parked."""
        task = run.task
        await self._status(run, parked)
        parked_at = time.time()
        state = serialization.dumps(run.progress(parked_at))
        await self.checkpoints.save(task.tenant, task.task_id, state)
        await self.leases.park(task.tenant, task.task_id)
        log.info("task parked", task_id=task.task_id, waits=str(parked))
        if await self._moved_on(task.task_id, parked):
            await self.wake(task.tenant, task.task_id)

    async def _status(self, run: TaskRun, parked: Parked) -> None:
        """INPUT_REQUIRED while a person is needed, else RUNNING (PENDING while it waits
        for its turn, before it ever ran)."""
        status = run.task.status
        detail = next((w.detail for w in parked.waits if w.person), "")
        if parked.person and status is not TaskStatus.INPUT_REQUIRED:
            await lifecycle.set_waiting(run, detail or "waiting for a person")
        elif not parked.person and status is TaskStatus.INPUT_REQUIRED:
            detail = parked.waits[0].detail if parked.waits else ""
            await lifecycle.set_running(run, detail or "no longer waiting for a person")

    async def _moved_on(self, task_id: str, parked: Parked) -> bool:
        """Whether a wait of `parked` ended, or was nudged, since the run looked."""
        seen = {w.slot: w.changes for w in parked.waits}
        current = {w.slot: w for w in await self.waits.of_task(task_id)}
        for slot, changes in seen.items():
            wait = current.get(slot)
            if wait is None:  # gone: the task ended (cancelled while it parked)
                return True
            if wait.state is not WaitState.OPEN or wait.changes != changes:
                return True
        return not seen  # waiting for nothing: nothing would wake it

    async def wake(self, tenant: str, task_id: str) -> None:
        """A wait of the parked task ended: it runs again, here when there is room, else
        on the first replica that claims it."""
        try:
            if not await self.leases.wake(task_id):
                return  # not parked (running, parking, ended), or woken by another
            if not await self.woken(tenant, task_id):
                await self.bus.publish(tenant, task_id)
        except Exception:  # the takeover pass claims it (or the waking pass wakes it)
            log.exception("could not wake a task", task_id=task_id)

    async def woken(self, tenant: str, task_id: str) -> bool:
        """Run a woken task here if this process claims it and has room; whether it
        does."""
        if self.resume is None or not await self.leases.claim(task_id):
            return False
        return await self.resume(tenant, task_id)

    async def nudge(self, tenant: str, task_id: str, slot: str) -> None:
        """What the task's wait in `slot` waits for moved on without ending (a child began
        or stopped waiting for a person): the task looks again."""
        if await self.waits.nudge(task_id, slot):
            await self.wake(tenant, task_id)

    async def ended(self, task: Task, _: object = None) -> None:
        """`task` ended (its end stored): its waits are gone, and its parent's wait for it
        is answered and the parent woken. Never raises."""
        try:
            await self.waits.forget(task.task_id)
            parent = task.parent_task_id
            if not parent:
                return
            answer = {"status": task.status.value}
            now = datetime.now(UTC)
            try:
                await self.waits.answer(
                    task.tenant, parent, task.task_id, WaitKind.CHILD, answer, task.task_id, now
                )
            except ApprovalNotPendingError:
                return  # the parent did not wait for it (or took its end in already)
            await self.wake(task.tenant, parent)
        except Exception:
            log.exception("could not tell a task's parent it ended", task_id=task.task_id)

    async def end_lost(self, history: TaskHistory) -> int:
        """End the tasks a previous process of this server left parked, when its live state
        died with it (the in-process store): each ends FAILED (SERVER_RESTARTED) in the
        history, the only place it still is. Returns how many ended."""
        ended = 0
        while batch := await self.waits.tasks(BATCH):
            for tenant, task_id in batch:
                try:
                    task = await history.get(tenant, task_id)
                except TaskNotFoundError:
                    task = None
                if task is not None and not task.status.terminal:
                    lost = LostAtRestartError()
                    task.failure = TaskFailure(lost.reason, lost.message)
                    task.stop_reason, task.stop_detail = lost.stop_reason, lost.message
                    task.move_to(TaskStatus.FAILED)
                    await history.record(task)
                    ended += 1
                await self.forget(task_id)
        if ended:
            log.warning("tasks that waited when the server stopped ended", tasks=ended)
        return ended

    async def forget(self, task_id: str) -> None:
        """A parked task was ended without being woken (cancelled): nothing of it stays."""
        await asyncio.gather(
            self.leases.finish(task_id),
            self.checkpoints.delete(task_id),
            self.waits.forget(task_id),
        )
