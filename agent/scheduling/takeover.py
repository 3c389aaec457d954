"""Replicas working together: leases kept, orphaned tasks taken over, cancellations heard.

Every task a process accepts is leased to it (`stores.leases`) and renewed
while it lives. A task whose lease this process cannot keep is handed over.
Orphaned tasks (their process died, or handed them over) are claimed while
there is room here, and resumed from their last checkpoint; one accepted but
never started begins from scratch, one with neither a checkpoint nor a
fresh start ends FAILED. A cancellation published by another replica stops
the task if it runs here.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import structlog

from agent.conversations.engine_hooks import TaskMemory
from agent.failures import OrphanNotResumableError
from agent.running.lifecycle import Endings
from agent.running.run import TaskRun
from agent.scheduling.admission import Admission, Ticket
from agent.scheduling.execution import Runner
from agent.scheduling.factory import RunFactory
from core.errors import ResourceExhaustedError, TaskNotFoundError
from core.identity import CallContext, Principal
from records import events as ev
from records import serialization
from records.checkpoints import RunCheckpoint
from records.tasks import Task, TaskStatus
from stores.cancellations.base import CancelBus
from stores.checkpoints.base import CheckpointStore
from stores.leases.base import Leases
from stores.steers.base import SteerBus

log = structlog.get_logger(__name__)


async def follow_cancellations(bus: CancelBus, runner: Runner) -> None:
    """Stop each task running here that another replica was asked to cancel."""
    try:
        async for task_id, reason in bus.subscribe():
            runner.cancel(task_id, reason)
    except Exception:
        log.exception("cancellation listener stopped")


async def follow_steers(bus: SteerBus, runner: Runner) -> None:
    """Nudge each task running here that another replica steered."""
    try:
        async for task_id in bus.subscribe():
            runner.steered(task_id)
    except Exception:
        log.exception("steer listener stopped")


class Takeover:
    """Keeps this process's leases and resumes the tasks other processes left."""

    def __init__(
        self,
        runner: Runner,
        runs: RunFactory,
        admission: Admission,
        leases: Leases,
        checkpoints: CheckpointStore,
        endings: Endings,
        interval_seconds: float,
        memory: TaskMemory | None = None,
    ) -> None:
        self._memory = memory
        self._runner = runner
        self._runs = runs
        self._admission = admission
        self._leases = leases
        self._checkpoints = checkpoints
        self._endings = endings
        self._interval = interval_seconds
        self.closing = False

    async def keep_leases(self) -> None:
        """Renew this process's leases; stop the tasks whose lease it cannot keep."""
        ttl = self._leases.ttl_seconds
        renewed = time.monotonic()
        while True:
            await asyncio.sleep(ttl / 3)
            held = list(self._runner.running)
            try:
                lost = await self._leases.renew(held)
            except Exception:
                log.exception("could not renew leases")
                if time.monotonic() - renewed > ttl * 0.8:
                    # Another process may claim them any moment: stop before it does.
                    lost = set(held)
                else:
                    continue
            else:
                renewed = time.monotonic()
            for task_id in lost:
                if task_id in self._runner.running:
                    log.warning("lease lost; stopping the task here", task_id=task_id)
                    self._runner.hand_over(task_id)

    async def take_over_orphans(self, max_running: int) -> None:
        """Claim tasks whose process stopped, and resume them, while there is room."""
        while not self.closing:
            room = min(self._admission.room, max_running - len(self._runner.running))
            if room > 0:
                try:
                    claimed = await self._leases.claim_orphans(room)
                except Exception:
                    log.exception("could not look for orphaned tasks")
                    claimed = []
                for tenant, task_id in claimed:
                    await self.take(tenant, task_id)
            await asyncio.sleep(self._interval)

    async def take(self, tenant: str, task_id: str) -> bool:
        """Run a task this process claimed, through the normal admission; False (the
        claim given back) when there is no room here."""
        try:
            ticket = self._admission.admit(tenant)
        except ResourceExhaustedError:
            await self._release_claim(task_id)  # another replica may have room
            return False
        try:
            await self.resume(tenant, task_id, ticket)
        except Exception:
            ticket.release()
            log.exception("could not resume a task", task_id=task_id)
            await self._release_claim(task_id)
            return False
        return True

    async def _release_claim(self, task_id: str) -> None:
        try:
            await self._leases.release(task_id)
        except Exception:
            log.exception("could not release a claimed task", task_id=task_id)

    async def resume(self, tenant: str, task_id: str, ticket: Ticket) -> None:
        """Run a claimed task from its last checkpoint (`ticket` is its place here)."""
        try:
            task: Task | None = await self._runs.store.get(tenant, task_id)
        except TaskNotFoundError:
            task = None
        if task is None or task.status.terminal:
            ticket.release()
            if task is not None and task.conversation_id and self._memory is not None:
                await self._memory.finish(task)  # its process died before it could
            await self._runner.forget(task_id)
            return
        checkpoint = await self._checkpoint(tenant, task_id)
        if checkpoint is None and task.status is not TaskStatus.PENDING:
            ticket.release()
            await self._fail_orphan(task)
            return
        run = self._resumed_run(task, checkpoint)
        completed = checkpoint.completed_steps if checkpoint is not None else 0
        if run.state.woken:  # it waited, parked, and was woken: it picks up where it waited
            log.info("waking a task", task_id=task_id, waited_seconds=round(run.bounds.waited, 3))
        else:
            log.info("resuming a task", task_id=task_id, completed_steps=completed)
            await run.transcript.emit(
                ev.TaskResumed(
                    "the process running it stopped; resumed from its last checkpoint",
                    self._leases.replica,
                    completed,
                )
            )
        self._runner.launch(run, ticket)

    async def _checkpoint(self, tenant: str, task_id: str) -> RunCheckpoint | None:
        raw = await self._checkpoints.load(tenant, task_id)
        loaded = serialization.loads(raw) if raw else None
        return loaded if isinstance(loaded, RunCheckpoint) else None

    def _resumed_run(self, task: Task, checkpoint: RunCheckpoint | None) -> TaskRun:
        specs = self._runs.specs(task.tools)
        if checkpoint is None:
            # Accepted but not yet recorded: nothing ran, so it starts from the beginning.
            call = CallContext(Principal(task.owner, task.tenant), task.trace_id)
            return self._runs.new(task, call, specs, 0)
        if checkpoint.usage.total_tokens > task.usage.total_tokens:
            task.usage = checkpoint.usage
        if checkpoint.parked_at is not None:  # the time it waited is not the task's
            paused = max(0.0, time.time() - checkpoint.parked_at)
            deadline = checkpoint.deadline_at
            checkpoint = replace(
                checkpoint,
                deadline_at=None if deadline is None else deadline + paused,
                waited_seconds=checkpoint.waited_seconds + paused,
            )
        remaining = (
            max(0.0, checkpoint.deadline_at - time.time())
            if checkpoint.deadline_at is not None
            else None
        )
        call = CallContext(checkpoint.principal, task.trace_id, remaining)
        return self._runs.new(task, call, specs, checkpoint.token_budget, resumed=checkpoint)

    async def _fail_orphan(self, task: Task) -> None:
        call = CallContext(Principal(task.owner, task.tenant), task.trace_id)
        run = self._runs.new(task, call, {}, 0, ran_here=False)
        if await self._endings.fail(run, OrphanNotResumableError()):  # its turn added too
            await self._endings.record(run)
        elif task.conversation_id and self._memory is not None and task.status.terminal:
            await self._memory.finish(task)  # it had ended meanwhile
        await self._runner.forget(task.task_id)
