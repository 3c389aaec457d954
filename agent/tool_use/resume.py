"""Waiting for ResumeTask after a tool call failed for a reason a person can fix.

A call that fails resumably (`ToolErrorKind.RESUMABLE`: its MCP server answered an
error code, its HTTP API a status, that the toolsets file declares; a built-in raised
`ToolFailed(resumable=True)`) is journalled with the end of its resume window and the
slot of its wait, and the task parks INPUT_REQUIRED (`TOOL_RESUMABLE: ...`) until
ResumeTask, on any replica, answers the wait; the wait does not count against the task's
time limit. The woken run makes that call again, and only that call; after the window
the task ends FAILED (TOOL_RESUMABLE). Calls of one task that fail side by side share
one wait: one ResumeTask resumes them all.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agent.failures import ResumeWindowClosedError
from agent.parked import Parked, Waiting
from core.errors import (
    ApprovalNotPendingError,
    FieldViolation,
    InvalidArgumentError,
    TaskNotResumableError,
)
from core.identity import Principal
from core.roles import Action, RoleTable
from records import events as ev
from records.checkpoints import JournalEntry
from records.tasks import Task, TaskStatus
from records.tools.outcomes import ToolCallResult, ToolErrorKind
from records.waits import Wait, WaitKind, WaitState

if TYPE_CHECKING:
    from agent.running.run import TaskRun
    from agent.tool_use.people import PersonWaits
    from stores.waits.base import WaitStore

RESUME_SLOT = "resume"
"""The slots of a task's waits for ResumeTask: `resume:<n>`, one at a time."""


class Resumes:
    """The waits of one run's calls for ResumeTask."""

    __slots__ = ("_lock", "_people", "_run")

    def __init__(self, run: TaskRun, people: PersonWaits) -> None:
        self._run = run
        self._people = people
        self._lock = asyncio.Lock()

    def waits_for(self, result: ToolCallResult) -> bool:
        """Whether the task waits for ResumeTask after `result` (only a stored task can)."""
        failed = result.error is not None and result.error.kind is ToolErrorKind.RESUMABLE
        return failed and self._run.state.can_wait

    async def wait(
        self, failed: ToolCallResult, key: str, journal: dict[str, JournalEntry]
    ) -> None:
        """Park after `failed` (the call journalled under `key`) until ResumeTask, for at
        most the resume window: joins the task's open wait for ResumeTask, if any."""
        run = self._run
        store = run.state.waits
        assert store is not None
        window = run.config.tools.resume_window_seconds
        async with self._lock:
            waits = [w for w in await store.of_task(run.task.task_id) if w.kind is WaitKind.RESUME]
            wait = next((w for w in waits if w.state is WaitState.OPEN), None)
            new = wait is None
            if wait is None:
                resume_by = datetime.fromtimestamp(time.time() + window, UTC)
                wait, new = await self._people.open(
                    WaitKind.RESUME,
                    f"{RESUME_SLOT}:{len(waits)}",
                    tool_name=failed.tool_name,
                    detail=failed.text[:500],
                    deadline_at=resume_by,
                )
        until = wait.deadline_at.timestamp() if wait.deadline_at else time.time() + window
        if key:
            journal[key] = JournalEntry(
                failed.call_id,
                failed.tool_name,
                True,
                False,
                failed.text,
                None,
                until,
                waiting=wait.slot,
            )
            # Kept before it is announced: a process that takes the task over (this one
            # killed before it parked) waits for the same resume and runs the same call.
            await run.checkpoint(run.state.pending)
        if new:
            at = datetime.fromtimestamp(until, UTC)
            waiting = (
                f"TOOL_RESUMABLE: {failed.tool_name} failed ({failed.text[:200]}); "
                f"ResumeTask by {at.isoformat(timespec='seconds')} runs it again"
            )
            announcement = ev.ToolCallResumable(
                failed.call_id, failed.tool_name, failed.text[:500], at
            )
            await self._people.announce(waiting, announcement)
        raise Parked([Waiting(WaitKind.RESUME, wait.slot, True, detail="TOOL_RESUMABLE")])

    async def resumed(self, entry: JournalEntry) -> None:
        """Return once ResumeTask answered the wait `entry` records (Parked until then);
        ResumeWindowClosedError once its window closed unanswered."""
        run = self._run
        store = run.state.waits
        wait = await store.get(run.task.task_id, entry.waiting) if store is not None else None
        window = run.config.tools.resume_window_seconds
        if wait is None or wait.timed_out:
            if wait is not None:
                await self._people.passed(wait)
                await self._people.taken(wait)
            raise ResumeWindowClosedError(entry.tool_name, entry.text, window)
        if wait.state is WaitState.OPEN:
            raise Parked([Waiting(WaitKind.RESUME, wait.slot, True, detail="TOOL_RESUMABLE")])
        await self._people.taken(wait)
        await self._people.no_longer_waiting(f"resumed by {wait.answered_by}")


MAX_COMMENT_CHARS = 1_000


async def resume(
    waits: WaitStore,
    task: Task,
    caller: Principal,
    comment: str,
    roles: RoleTable,
) -> Wait:
    """Leave `caller`'s ResumeTask for `task`: the calls waiting run again (on whichever
    replica takes the task). Its wait, answered; TaskNotResumableError when none waits."""
    if caller.id != task.owner:
        roles.require(caller.roles, Action.RESUME_ANOTHERS_TASK)
    if len(comment) > MAX_COMMENT_CHARS:
        raise InvalidArgumentError(
            [FieldViolation("comment", f"must be at most {MAX_COMMENT_CHARS} characters")]
        )
    if task.status.terminal:
        closed = task.failure is not None and task.failure.reason == "TOOL_RESUMABLE"
        why = "its resume window closed" if closed else "it has ended"
        raise TaskNotResumableError(task.task_id, f"{why} ({task.status.value})")
    if task.status is not TaskStatus.INPUT_REQUIRED:
        raise TaskNotResumableError(
            task.task_id, f"no tool call of it waits to be resumed (it is {task.status.value})"
        )
    found = [
        w
        for w in await waits.of_task(task.task_id)
        if w.kind is WaitKind.RESUME and w.state is WaitState.OPEN
    ]
    try:
        if not found:
            raise ApprovalNotPendingError(task.task_id, RESUME_SLOT)
        answer = {"comment": comment}
        now = datetime.now(UTC)
        slot = found[0].slot
        return await waits.answer(
            task.tenant, task.task_id, slot, WaitKind.RESUME, answer, caller.id, now
        )
    except ApprovalNotPendingError:
        raise TaskNotResumableError(
            task.task_id, "no tool call of it waits to be resumed (it waits for something else)"
        ) from None
