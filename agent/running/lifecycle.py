"""A task's status, written here and nowhere else.

PENDING (stored, first event) -> RUNNING <-> INPUT_REQUIRED (waiting for a person;
a child task's parent is nudged to relay it) -> COMPLETED (with a final answer,
possibly partial when a limit stopped the work), FAILED (with a `TaskFailure`) or
CANCELLED. Every change is
told to the engine's notices first (`agent.notices`: the webhooks' outbox), then
saved with the task and announced by a `status_changed` event; the terminal
one is always the last event of the task's log, and it is what ends every
reader's stream (so what must be done by then, a conversation's turn, is done
between storing the end and writing that event). A terminal state is never
overwritten: a late write after a cancel is dropped by the store.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING

import structlog

from agent.failures import TaskFailedError
from agent.inputs.keeping import announced
from agent.llm import sanitize
from agent.notices import NoNotices, Notices
from agent.running.answers import Outcome, notes_answer
from agent.running.artifacts import written_refs
from agent.running.citations import merged
from agent.running.event_writer import redact_event
from core.errors import TaskAlreadyTerminalError
from core.faults import is_unavailable
from core.secrets import scrub
from records import events as ev
from records.tasks import StopReason, Task, TaskFailure, TaskStatus
from stores.history.base import TaskHistory
from stores.tasks.base import TaskStore

if TYPE_CHECKING:
    from agent.running.run import TaskRun

log = structlog.get_logger(__name__)

PERSIST_DELAYS = (0.1, 0.5, 1.0, 2.0, 4.0, 8.0)
"""Waits between attempts to write a task's end while a store is out of reach (~15 s)."""


async def accepted(store: TaskStore, run: TaskRun) -> None:
    """Store a new task as PENDING and write its first event, then one `ArtifactUpdated`
    event for each of its input parts (`agent.inputs`)."""
    await store.create(run.task)
    await run.transcript.emit(
        ev.StatusChanged(TaskStatus.PENDING, None, f"accepted; mode {run.task.mode.value}")
    )
    for event in announced(run.task):
        await run.transcript.emit(event)


async def set_running(
    run: TaskRun,
    detail: str,
    history: TaskHistory | None = None,
    also: Awaitable[None] | None = None,
) -> None:
    """RUNNING: work started, or resumed after a person answered. A task that never waited
    has no history row yet: it is recorded in `history` (with `also`, its first checkpoint)
    before the event announces it, so that a ListTasks that follows the event finds it
    (which lists it by its live state, so a row written while it waited does as well)."""
    await _change(run, TaskStatus.RUNNING, detail, history, also)


async def set_waiting(run: TaskRun, detail: str) -> None:
    """INPUT_REQUIRED: the task waits for a person (an approval)."""
    await _change(run, TaskStatus.INPUT_REQUIRED, detail)


async def _change(
    run: TaskRun,
    status: TaskStatus,
    detail: str,
    history: TaskHistory | None = None,
    also: Awaitable[None] | None = None,
) -> None:
    previous = run.task.status
    run.task.status = status
    # Told before the change is saved: what they write is durable before it is visible.
    try:
        await run.state.notices.task_status(run.task, status, previous)
    except BaseException:  # cancelled (or failed) before the writes: `also` is never run
        if isinstance(also, Coroutine):
            also.close()
        raise
    writes: list[Awaitable[None]] = [run.transcript.save()]
    if history is not None:
        writes.append(history.record(run.task))
    if also is not None:
        writes.append(also)
    # The task's state (and its history row), before the event; one write is awaited as
    # it is, not in a task of its own.
    await (writes[0] if len(writes) == 1 else asyncio.gather(*writes))
    await run.transcript.emit(ev.StatusChanged(status, previous, detail))
    task = run.task
    person = TaskStatus.INPUT_REQUIRED in (status, previous)
    if person and task.parent_task_id and run.state.nudge is not None:  # its parent relays it
        await run.state.nudge(task.tenant, task.parent_task_id, task.task_id)


EndHook = Callable[[Task, "TaskRun | None"], Awaitable[object]]
"""Called with a task whose end is stored (and the run that ended it, when it ended
here), before its terminal event is written (so that whoever the event wakes finds
it done); it must not raise."""


class Endings:
    """Writes the terminal states: the task and its last event (each method returns
    whether it ended the task: False when it had ended already), then, with `record`,
    its history row (after its slot is free: the next task need not wait for it)."""

    def __init__(
        self,
        store: TaskStore,
        history: TaskHistory,
        before_event: EndHook | None = None,
        after_end: EndHook | None = None,
        notices: Notices | None = None,
    ) -> None:
        self._notices: Notices = notices or NoNotices()
        """Told of each end (`agent.notices`)."""
        self._store = store
        self._history = history
        self._before_event = before_event
        self._after_end = after_end
        """Called once the terminal event is written: the task's waits forgotten, its
        parent's wait for it answered (`agent.scheduling.parking`); never raises."""

    async def complete(self, run: TaskRun, outcome: Outcome) -> bool:
        task = run.task
        outcome = replace(outcome, answer=_restored(run, outcome.answer))
        task.final_answer = scrub(outcome.answer)
        task.stop_reason = outcome.stop_reason
        task.stop_detail = scrub(outcome.detail)
        task.partial = outcome.stop_reason is not StopReason.FINAL_ANSWER
        written = written_refs(run)
        task.citations = tuple(
            replace(c, snippet=scrub(c.snippet)) for c in merged(run.transcript.citations)
        )
        await run.transcript.emit(
            ev.FinalAnswer(
                outcome.answer,
                outcome.stop_reason,
                outcome.detail,
                task.partial,
                written,
                task.citations,
            )
        )
        return await self._end(run, TaskStatus.COMPLETED, outcome.detail)

    async def fail(self, run: TaskRun, failure: TaskFailedError) -> bool:
        task = run.task
        message = scrub(failure.message)
        task.failure = TaskFailure(failure.reason, message)
        task.stop_reason = failure.stop_reason
        task.stop_detail = message
        if run.transcript.notes:
            task.final_answer = scrub(_restored(run, notes_answer(run, message)))
        try:
            await persist(
                lambda: run.transcript.emit(ev.ErrorOccurred(failure.reason, message, True))
            )
        except TaskAlreadyTerminalError:
            return False
        except Exception:
            log.exception("could not write a task's error event")
        return await self._end(run, TaskStatus.FAILED, message)

    async def cancelled(self, run: TaskRun, reason: str) -> bool:
        task = run.task
        task.stop_reason = StopReason.CANCELLED
        task.stop_detail = reason
        if run.transcript.notes:
            task.final_answer = scrub(_restored(run, notes_answer(run, f"cancelled: {reason}")))
        return await self._end(run, TaskStatus.CANCELLED, reason)

    async def cancel_stored(self, task: Task, reason: str) -> Task:
        """End CANCELLED a task no coroutine of this process runs (it may run elsewhere, or
        was cancelled before it started). TaskAlreadyTerminalError if it already ended."""
        if not task.status.terminal:  # told before the end is stored (as for any end)
            ending = task.snapshot()
            ending.status = TaskStatus.CANCELLED
            ending.stop_reason, ending.stop_detail = StopReason.CANCELLED, reason
            await persist(
                lambda: self._notices.task_status(ending, TaskStatus.CANCELLED, task.status)
            )
        moved = await self._store.set_status(
            task.tenant, task.task_id, TaskStatus.CANCELLED, detail=reason
        )
        if self._before_event is not None:  # its conversation's turn, as for any end
            await self._before_event(moved, None)
        await self._store.append_event(
            task.task_id,
            task.trace_id,
            redact_event(
                ev.StatusChanged(TaskStatus.CANCELLED, task.status, reason, StopReason.CANCELLED)
            ),
        )
        cancelled = await self._store.get(task.tenant, task.task_id)
        await self._history.record(cancelled)
        if self._after_end is not None:
            await self._after_end(cancelled, None)
        return cancelled

    async def record(self, run: TaskRun) -> None:
        """The history row of a task ended here (its last sequence: the end's). Never
        raises: a database out of reach is retried for a while, then logged."""
        try:
            await persist(lambda: self._history.record(run.task))
        except Exception:
            log.exception("could not record task history", task_id=run.task.task_id)

    async def _end(self, run: TaskRun, status: TaskStatus, detail: str) -> bool:
        """Write the terminal state (unless the task already ended) and its event; whether
        this ended the task.

        Never raises: a store that fails is retried for a while (the terminal
        event is what closes every reader's stream); if it stays out of reach,
        the task keeps its lease's fate (another replica takes it over).
        """
        task = run.task
        previous = task.status
        task.status = status
        replay = run.tools.replay
        if replay is not None and run.ran_here:  # its report, kept with the task
            try:
                task.replay = await replay.report(task.final_answer)
            except Exception:
                log.exception("could not compare a replay with its recording")
        # Its trace whole before its end is seen: written beside the end's other writes
        # (on one database, one commit can carry them all).
        recording = run.state.recording
        traced = asyncio.ensure_future(recording.flush()) if recording is not None else None
        try:
            # Told before the end is stored: what they write is durable before it is seen.
            await persist(lambda: self._notices.task_status(task, status, previous))
            await persist(run.transcript.save)
        except TaskAlreadyTerminalError:
            await _written(traced)
            return False  # a late end after a cancel: dropped
        except Exception:
            log.exception("could not store a task's end", status=status.value)
            await _written(traced)
            return False
        if self._before_event is not None:
            await self._before_event(task, run)
        await _written(traced)
        try:
            await persist(
                lambda: run.transcript.emit(
                    ev.StatusChanged(status, previous, detail, task.stop_reason)
                )
            )
        except TaskAlreadyTerminalError:
            return False
        except Exception:
            log.exception("could not write a task's terminal event", status=status.value)
            return False
        if self._after_end is not None:
            await self._after_end(task, run)
        log.info(
            "task ended",
            status=status.value,
            mode=task.mode.value,
            stop_reason=task.stop_reason.value if task.stop_reason else "",
            prompt_tokens=task.usage.prompt_tokens,
            completion_tokens=task.usage.completion_tokens,
        )
        return True


async def _written(traced: asyncio.Future[None] | None) -> None:
    """Wait for a run's trace flush (started with its end's writes)."""
    if traced is not None:
        await traced


def _restored(run: TaskRun, answer: str) -> str:
    """An answer with the model's URL placeholders restored, held to the reply size cap
    (a placeholder stands for up to `agent.running.urls.MAX_URL_CHARS` characters)."""
    return sanitize.capped(run.transcript.urls.restore(answer))


async def persist(write: Callable[[], Awaitable[None]]) -> None:
    """Run a write that must happen (a task's end), retrying while a store is unavailable."""
    for delay in (*PERSIST_DELAYS, None):
        try:
            await write()
            return
        except Exception as error:
            if delay is None or not is_unavailable(error):
                raise
            log.warning("a store is unavailable; retrying a task's end", delay=delay)
            await asyncio.sleep(delay)
