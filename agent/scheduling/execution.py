"""Running accepted tasks in this process: a slot each, the time limit, the mode, the end.

Each task runs in an asyncio task of its own. It waits for a running slot
(`agent.scheduling.admission`), becomes RUNNING, and runs its mode under the task's time
limit; whatever happens, it ends through `agent.running.lifecycle`, or parks. A task
that must wait (`agent.parked.Parked`: for a person, children, a remote agent, its turn
in a conversation) gives back its slot and its place and is parked
(`agent.scheduling.parking`), to be woken on any replica. A task can be stopped two ways:
cancelled (it ends CANCELLED) or handed over (its lease was lost, or the process shuts
down while replicas share leases): then it keeps its checkpoint and its lease is
released for another process to resume it.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

import structlog

from agent.conversations.engine_hooks import TaskMemory
from agent.failures import NoAnswerWithinLimitError, RemoteAgentError, failure_of
from agent.limits import EngineConfig, LimitReached, task_timeout
from agent.llm.base import ModelError
from agent.modes import function_calling, llm_router, plan_execute, text_react
from agent.modes.synthesis import partial_outcome
from agent.parked import Parked
from agent.running import answers
from agent.running.answers import Outcome, notes_answer
from agent.running.lifecycle import Endings, set_running
from agent.running.run import TaskRun
from agent.scheduling.admission import Ticket
from agent.scheduling.parking import Parking
from agent.teams.remote import RemoteAgents
from core.errors import TaskAlreadyTerminalError
from records.execution import ExecutionMode
from records.tasks import StopReason, TaskStatus
from stores.checkpoints.base import CheckpointStore
from stores.history.base import TaskHistory
from stores.leases.base import Leases

log = structlog.get_logger(__name__)


async def _routed(run: TaskRun) -> Outcome:
    """Auto mode with a router model: its answer, or the mode it chose (kept on the task)."""
    mode, outcome = await llm_router.route(run)
    if outcome is not None:
        return outcome
    run.task.mode = mode
    await run.transcript.save()
    return await MODES[mode](run)


MODES: dict[ExecutionMode, Callable[[TaskRun], Awaitable[Outcome]]] = {
    ExecutionMode.AUTO: _routed,
    ExecutionMode.FUNCTION_CALLING: function_calling.run,
    ExecutionMode.TEXT_REACT: text_react.run,
    ExecutionMode.PLAN_AND_EXECUTE: plan_execute.run,
}


class Runner:
    """The tasks running (or queued) in this process."""

    def __init__(
        self,
        config: EngineConfig,
        endings: Endings,
        history: TaskHistory,
        leases: Leases,
        checkpoints: CheckpointStore | None,
        parking: Parking,
        memory: TaskMemory | None = None,
    ) -> None:
        self._config = config
        self._parking = parking
        self._memory = memory
        self._endings = endings
        self._history = history
        self._leases = leases
        self._checkpoints = checkpoints
        self.running: dict[str, tuple[asyncio.Task[None], TaskRun]] = {}
        self.remote: RemoteAgents | None = None
        """What runs child tasks on remote A2A agents (`agent.teams.remote`)."""
        self._cancel_reasons: dict[str, str] = {}
        self._letting_go: set[str] = set()
        """Tasks to stop without ending them: handed over, or their lease was lost."""

    def launch(self, run: TaskRun, ticket: Ticket) -> None:
        """Run `run` in its own asyncio task; `ticket` is its place here, freed at its end."""
        task_id = run.task.task_id
        runner = asyncio.create_task(self._run(run, ticket), name=f"agentd-task-{task_id}")
        self.running[task_id] = (runner, run)

        def done(_: asyncio.Task[None]) -> None:
            entry = self.running.get(task_id)
            if entry is not None and entry[0] is runner:  # not a run of it woken since
                del self.running[task_id]
            ticket.release()

        runner.add_done_callback(done)

    def cancel(self, task_id: str, reason: str) -> asyncio.Task[None] | None:
        """Stop a task running here; it ends CANCELLED with `reason`. None if not here."""
        entry = self.running.get(task_id)
        if entry is None:
            return None
        self._cancel_reasons[task_id] = reason
        entry[0].cancel()
        return entry[0]

    def steered(self, task_id: str) -> bool:
        """Tell a task running here that its log holds a new steer; whether it runs here."""
        entry = self.running.get(task_id)
        if entry is None:
            return False
        entry[1].transcript.steers.nudge()
        return True

    def hand_over(self, task_id: str) -> None:
        """Stop a task running here without ending it, for another process to resume."""
        entry = self.running.get(task_id)
        if entry is not None:
            self._letting_go.add(task_id)
            entry[1].handing_over = True  # its children go on
            entry[0].cancel()

    def forget_cancel(self, task_id: str) -> None:
        self._cancel_reasons.pop(task_id, None)

    async def drain(self, seconds: float) -> None:
        """Let running and queued tasks finish for up to `seconds`."""
        runners = {runner for runner, _ in self.running.values()}
        if runners and seconds > 0:
            log.info("waiting for running tasks", tasks=len(runners), seconds=seconds)
            await asyncio.wait(runners, timeout=seconds)

    async def stop_all(self, reason: str) -> None:
        """Stop every task still here: handed over when leases are shared, else cancelled.
        A task that has ended is only waited for (its history row is being written)."""
        for task_id, (_, run) in list(self.running.items()):
            if run.task.status.terminal:
                continue
            if self._leases.shared:
                self.hand_over(task_id)
            else:
                self.cancel(task_id, reason)
        if self.running:
            await asyncio.wait({r for r, _ in self.running.values()}, timeout=5)

    async def forget(self, task_id: str, parked: bool = True) -> None:
        """The task ended: drop its lease and checkpoint (the one it parked with, too,
        when it may have parked: without shared leases no other is written)."""
        try:
            await self._leases.finish(task_id)
            checkpoints = self._checkpoints
            if checkpoints is None and parked:
                checkpoints = self._parking.checkpoints
            if checkpoints is not None:
                await checkpoints.delete(task_id)
        except Exception:
            log.exception("could not drop a finished task's lease", task_id=task_id)

    async def _let_go(self, run: TaskRun) -> None:
        """Stop running a task without ending it: keep its progress, free its lease."""
        task_id = run.task.task_id
        self._letting_go.discard(task_id)
        try:
            await run.checkpoint()
            await self._leases.release(task_id)
        except Exception:
            log.exception("could not hand a task over", task_id=task_id)
        log.info("task handed over", task_id=task_id)

    def _deadline(self, run: TaskRun) -> float:
        """The task's time limit: the caller's (`timeout`), capped by the server's. Never
        the deadline of the call that started it, which bounds that call's stream only."""
        if run.bounds.deadline_at is not None:  # resumed: what was left of it
            return max(0.0, run.bounds.deadline_at - time.time())
        limit = self._config.task_timeout_seconds
        asked = run.task.time_limit_seconds
        if asked is not None and math.isfinite(asked) and asked > 0:
            limit = min(limit, asked)
        return limit

    async def _run(self, run: TaskRun, ticket: Ticket) -> None:
        task_id = run.task.task_id
        # The task's own asyncio task: every log line of its run names it (and its caller).
        structlog.contextvars.bind_contextvars(
            task_id=task_id,
            trace_id=run.call.trace_id,
            principal=run.call.principal.id,
            tenant=run.call.principal.tenant,
        )
        ended = False
        parked: Parked | None = None
        try:
            # A new task that can run at once writes its first checkpoint with its RUNNING
            # state; one that must wait (for a slot, or its conversation) is recorded as
            # PENDING first. Here rather than when accepted: the first event waits on no SQL.
            fresh = run.state.resumed is None
            at_once = fresh and not run.task.conversation_id and ticket.take_now()
            if fresh and not at_once:  # both at once: one commit, not two in a row
                await asyncio.gather(self._history.record(run.task), run.checkpoint())
            if not fresh and run.state.recording is not None:  # the task's cap, not the run's
                await run.state.recording.resume()
            if self._memory is not None and run.task.conversation_id:
                await self._memory.take_turn(run)  # Parked while the tasks before it run
            async with ticket.slot():
                ended = await self._run_in_slot(run, first_checkpoint=at_once)
        except Parked as waits:  # it waits: its place and its slot are given back
            parked = waits
        except asyncio.CancelledError:  # cancelled while queued
            if task_id not in self._letting_go:
                ended = await self._cancelled(run)
        except Exception as error:  # noqa: BLE001 - a store fault before it ran: it still ends
            ended = await self._endings.fail(run, failure_of(error, run.call.trace_id))
        finally:  # the slot is free: the next task runs while these are written
            if task_id in self._letting_go:
                await self._let_go(run)
            elif parked is not None:
                await self._park(run, parked)
            else:
                await self._finished(run, ended)

    async def _park(self, run: TaskRun, parked: Parked) -> None:
        """The task waits: parked (`agent.scheduling.parking`), nothing of it kept here.
        A task that cannot be parked (its stores out of reach) ends FAILED."""
        try:
            await asyncio.shield(self._parking.park(run, parked))
        except Exception as error:  # a task that cannot wait still ends
            log.exception("could not park a task", task_id=run.task.task_id)
            ended = await self._endings.fail(run, failure_of(error, run.call.trace_id))
            await self._finished(run, ended)

    async def _finished(self, run: TaskRun, ended: bool) -> None:
        """The task's run is over: its turn in its conversation if it ended, but not here
        (one that `ended` here added it before its terminal event), then, at once, its
        history row if it `ended` here, and its lease and checkpoint dropped. (A task
        whose end could not be stored is left to the replica that takes it over.)"""
        task = run.task
        memory = self._memory if task.conversation_id else None
        if memory is not None and task.status.terminal and not ended:
            await memory.finish(task)
        parked = run.state.resumed is not None  # a woken run's task parked before
        if ended:
            await asyncio.gather(self._endings.record(run), self.forget(task.task_id, parked))
        else:
            await self.forget(task.task_id, parked)

    async def _run_in_slot(self, run: TaskRun, first_checkpoint: bool = False) -> bool:
        """Run the task to its end (writing its `first_checkpoint` as it starts); whether it
        ended here (its end was written)."""
        task = run.task
        try:
            if task.status is TaskStatus.PENDING:
                detail = f"mode {task.mode.value}"
                if first_checkpoint:  # its first record: history's row and the checkpoint
                    await set_running(run, detail, self._history, run.checkpoint())
                else:  # both written while it waited: its slot waits on no SQL
                    await set_running(run, detail)
            guard = run.transcript.guard
            if guard is not None and run.state.resume_state() is None:  # before its first call
                await guard.task_input(task, run.transcript.emit)
            outcome = await answers.shaped(run, await self._work(run))
            if guard is not None:
                answer = await guard.answer(outcome.answer, run.transcript.emit)
                outcome = replace(outcome, answer=answer)
            return await self._endings.complete(run, outcome)
        except Parked:
            raise  # it waits: parked once its slot is free
        except asyncio.CancelledError:
            if task.task_id not in self._letting_go:
                return await self._cancelled(run)
        except TaskAlreadyTerminalError:
            log.info("late write after the task ended was dropped", task_id=task.task_id)
        except Exception as error:  # noqa: BLE001 - every accepted task ends, whatever broke
            return await self._endings.fail(run, failure_of(error, run.call.trace_id))
        return False

    async def _work(self, run: TaskRun) -> Outcome:
        """The mode's outcome within the task's time limit, or the best partial one a limit
        leaves; NoAnswerWithinLimitError when a limit stopped it before any result."""
        deadline = self._deadline(run)
        if run.bounds.deadline_at is None:
            run.bounds.deadline_at = time.time() + deadline
        try:
            async with task_timeout(deadline):
                if self._memory is not None and run.task.conversation_id:
                    await self._memory.prepare(run)
                recall = self._memory.recall if self._memory is not None else None
                if recall is not None and run.state.resume_state() is None:  # else in its messages
                    await recall(run)
                agent = run.task.agent
                if agent is not None and agent.remote is not None:
                    if self.remote is None:
                        raise RemoteAgentError(agent.agent_id, "this server calls no A2A agents")
                    return await self.remote.run(run, agent.remote)
                return await MODES[run.task.mode](run)
        except LimitReached as limit:
            reason, detail = limit.reason, limit.detail
            outcome = await self._partial(run, limit)
        except TimeoutError:
            reason = StopReason.DEADLINE
            detail = f"the task's time limit of {deadline:g} s passed"
            outcome = (
                Outcome(notes_answer(run, detail), reason, detail) if run.transcript.notes else None
            )
        if outcome is None:  # stopped before any usable result: no made-up answer
            raise NoAnswerWithinLimitError(reason, detail)
        return outcome

    async def _partial(self, run: TaskRun, limit: LimitReached) -> Outcome | None:
        """The best answer the results gathered support, or None when there are none."""
        if not run.transcript.notes:
            return None
        if limit.reason is StopReason.BUDGET_EXHAUSTED:  # no model call left to write one
            return Outcome(notes_answer(run, limit.detail), limit.reason, limit.detail)
        try:
            async with asyncio.timeout(self._config.step_timeout_seconds):
                return await partial_outcome(run, limit)
        except (TimeoutError, ModelError, LimitReached, Parked):  # a budget had no room
            return Outcome(notes_answer(run, limit.detail), limit.reason, limit.detail)

    async def _cancelled(self, run: TaskRun) -> bool:
        reason = self._cancel_reasons.pop(run.task.task_id, "") or "cancelled"
        return await self._endings.cancelled(run, reason)
