"""Waiting for ResumeTask after a tool call failed for a reason a person can fix.

A call that fails resumably (`ToolErrorKind.RESUMABLE`: its MCP server answered an
error code, its HTTP API a status, that the toolsets file declares; a built-in raised
`ToolFailed(resumable=True)`) is journalled with the end of its resume window and
checkpointed with the mode's state as it was when the model asked for the call, so a
process that takes the task over waits for the same resume and runs the same call. The
task waits INPUT_REQUIRED (`TOOL_RESUMABLE: ...`) for ResumeTask on any replica; the
wait does not count against the task's time limit. ResumeTask runs that call again, and
only that call; after the window the task ends FAILED (TOOL_RESUMABLE). Calls of one
task that fail side by side share one wait: one ResumeTask resumes them all.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agent.failures import ResumeWindowClosedError
from agent.limits import task_clock_stopped
from agent.tool_use.base import RunTools
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
from records.tools.approvals import ApprovalDecision
from records.tools.outcomes import ToolCallError, ToolCallResult, ToolErrorKind

if TYPE_CHECKING:
    from agent.running.run import TaskRun
    from stores.approvals.base import ApprovalBox

RESUME_SLOT = "resume"
"""The approval slot a task's resume is left in (one per task)."""


def failed_before(entry: JournalEntry) -> ToolCallResult:
    """The resumable failure a journal entry records (a resumed run waits for it again)."""
    error = ToolCallError(ToolErrorKind.RESUMABLE, entry.text)
    return ToolCallResult(entry.call_id, entry.tool_name, None, entry.text, 0.0, error)


class Resumes:
    """The waits of one run's calls for ResumeTask."""

    __slots__ = ("_calls", "_lock", "_resumed", "_run")

    def __init__(self, run: TaskRun, calls: RunTools) -> None:
        self._run = run
        self._calls = calls
        self._lock = asyncio.Lock()
        self._resumed = 0

    def waits_for(self, result: ToolCallResult) -> bool:
        """Whether the task waits for ResumeTask after `result` (only a stored task can)."""
        run = self._run
        failed = result.error is not None and result.error.kind is ToolErrorKind.RESUMABLE
        return failed and run.persist and run.approvals is not None

    async def wait(self, failed: ToolCallResult, key: str, resume_by: float = 0.0) -> None:
        """Wait for ResumeTask after `failed` (the call journalled under `key`) until
        `resume_by` (0: a window from now); ResumeWindowClosedError once it has passed."""
        run = self._run
        window = run.config.resume_window_seconds
        resume_by = resume_by or time.time() + window
        if key:
            self._calls.journal[key] = JournalEntry(
                failed.call_id, failed.tool_name, True, False, failed.text, None, resume_by
            )
            await self._checkpoint(window)
        seen = self._resumed
        async with self._lock:
            if self._resumed != seen:
                return  # a call beside it waited, and was resumed meanwhile
            await self._wait(failed, resume_by, window)
            self._resumed += 1

    async def _checkpoint(self, window: float) -> None:
        """The checkpoint a process taking the task over resumes from: the mode's state as
        the model asked for the call, and a deadline that leaves room for the wait."""
        run = self._run
        saved = run.deadline_at
        if saved is not None:
            run.deadline_at = saved + window
        try:
            await run.checkpoint(run.pending_state)
        finally:
            run.deadline_at = saved

    async def _wait(self, failed: ToolCallResult, resume_by: float, window: float) -> None:
        run = self._run
        left = resume_by - time.time()
        if left <= 0:
            raise ResumeWindowClosedError(failed.tool_name, failed.text, window)
        until = datetime.fromtimestamp(resume_by, UTC)
        announcement = ev.ToolCallResumable(
            failed.call_id, failed.tool_name, failed.text[:500], until
        )
        waiting = (
            f"TOOL_RESUMABLE: {failed.tool_name} failed ({failed.text[:200]}); "
            f"ResumeTask by {until.isoformat(timespec='seconds')} runs it again"
        )
        started = time.time()
        try:
            async with task_clock_stopped(), asyncio.timeout(left):
                decision = await self._calls.wait_for_person(
                    RESUME_SLOT, waiting, announcement, "the resume window closed", left
                )
        except (TimeoutError, ApprovalNotPendingError):
            raise ResumeWindowClosedError(failed.tool_name, failed.text, window) from None
        finally:
            if run.deadline_at is not None:  # the wait did not count against the task
                run.deadline_at += time.time() - started
        await self._calls.no_longer_waiting(f"resumed by {decision.decided_by}")


MAX_COMMENT_CHARS = 1_000


async def resume(
    approvals: ApprovalBox,
    task: Task,
    caller: Principal,
    comment: str,
    roles: RoleTable,
) -> None:
    """Leave `caller`'s ResumeTask for `task`: the call waiting runs again (on whichever
    replica runs the task). TaskNotResumableError when no call of it waits."""
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
    decision = ApprovalDecision(True, caller.id, comment)
    try:
        await approvals.decide(task.tenant, task.task_id, RESUME_SLOT, decision)
    except ApprovalNotPendingError:
        raise TaskNotResumableError(
            task.task_id, "no tool call of it waits to be resumed (it waits for something else)"
        ) from None
