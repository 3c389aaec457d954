"""A tool call's end, said once: its `tool_call_finished` event written and its record
kept in the task's durable trace (`agent.recording`), with where its result came from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from records import events as ev
from records.tasks import Task
from records.tools.invocation import Invocation
from records.tools.outcomes import ToolCallResult
from records.traces.model import ToolSource

if TYPE_CHECKING:
    from agent.running.run import TaskRun


async def finished(
    run: TaskRun,
    step_id: str,
    invocation: Invocation,
    result: ToolCallResult,
    key: str = "",
    source: ToolSource = ToolSource.LIVE,
) -> None:
    """Write the call's end (`key`: its journal key, which names the child task a
    delegation started) and trace it: `source` LIVE when the tool ran, RECORDED or
    NOT_RUN when a replay answered it from a recording or did not run it."""
    await run.transcript.emit(
        ev.ToolCallFinished(
            invocation.call_id,
            invocation.name,
            result.data,
            result.error,
            result.duration_seconds,
            result.text,
            result.cached,
        )
    )
    recording = run.state.recording
    if recording is not None:
        child = child_of(run.task, key or invocation.call_id)
        recording.tool_call(step_id, invocation, result, source=source, child_task_id=child)


def child_of(task: Task, key: str) -> str:
    """The child task a team call of `task` under `key` started (the first, for a panel's
    members), or empty."""
    if not task.children:
        return ""
    named = f"{task.task_id}/{key}"
    return next((c.task_id for c in task.children if c.call_key.startswith(named)), "")
