"""What a tool call of a task comes to when it is not simply run (`agent.tool_use.calls`): a
journalled call met again after a takeover, a tool that cannot be called, and the
shortened texts a task's notes and the model see."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import structlog

from core.errors import AgentdError, PermissionDeniedError, ToolNotFoundError, ToolUnavailableError
from records import events as ev
from records.checkpoints import JournalEntry
from records.tools.invocation import Invocation
from records.tools.outcomes import ToolCallError, ToolCallResult, ToolErrorKind

if TYPE_CHECKING:
    from agent.running.run import TaskRun

log = structlog.get_logger(__name__)

UNKNOWN_OUTCOME = (
    "outcome unknown: the server process running this call stopped before the call reported "
    "back, and {tool} may not be repeated safely, so it was not called again. Check whether "
    "it took effect before relying on it or calling it again."
)


async def replayed(
    run: TaskRun,
    journal: dict[str, JournalEntry],
    step_id: str,
    name: str,
    entry: JournalEntry,
    key: str,
) -> ToolCallResult:
    """A journalled call met again on a resumed run: its result, or an unknown outcome
    (the call is not repeated; the journal records it as finished)."""
    if entry.finished:
        failed = None if entry.ok else ToolCallError(ToolErrorKind.FAILED, entry.text)
        result = ToolCallResult(entry.call_id, name, entry.data, entry.text, 0.0, failed)
        result = replace(result, images=entry.images)
    else:
        text = UNKNOWN_OUTCOME.format(tool=name)
        error = ToolCallError(ToolErrorKind.OUTCOME_UNKNOWN, text)
        await run.transcript.emit(ev.ToolCallFinished(entry.call_id, name, None, error, 0.0, text))
        result = ToolCallResult(entry.call_id, name, None, text, 0.0, error)
        journal[key] = JournalEntry(entry.call_id, name, True, False, text)
        await run.checkpoint()
        log.warning(
            "tool call outcome unknown after takeover; not repeated",
            task_id=run.task.task_id,
            tool=name,
            call_id=entry.call_id,
            step_id=step_id,
        )
    return result


def entry_of(result: ToolCallResult) -> JournalEntry:
    """The journal's entry of a finished call: its outcome, text, data and images."""
    return JournalEntry(
        result.call_id,
        result.tool_name,
        True,
        result.ok,
        result.text,
        result.data,
        images=result.images,
    )


def unavailable(name: str, error: ToolUnavailableError | ToolNotFoundError) -> ToolCallError:
    """A tool the task was given that cannot be called: its server is down, or a reload
    of the toolsets removed it after the task started (the task keeps its list of tools;
    the tool is gone)."""
    if isinstance(error, ToolUnavailableError):
        text = f"not called: {error.message}; it may work again later"
    else:
        text = (
            f"not called: tool {name!r} was removed from the toolsets after this task "
            "started, so it can no longer be called"
        )
    return ToolCallError(ToolErrorKind.UNAVAILABLE, text)


def not_run(invocation: Invocation, kind: ToolErrorKind, message: str) -> ToolCallResult:
    """The result of a call that did not run: `message` is what the model sees."""
    error = ToolCallError(kind, message)
    return ToolCallResult(invocation.call_id, invocation.name, None, message, 0.0, error)


def refused(invocation: Invocation, refusal: AgentdError) -> ToolCallResult:
    """A call the registry (or the tool) refused: the reason, and for a permission the
    rule that decided (`grant:<id>`, `default:deny`), are what the model sees."""
    rule = f", {refusal.rule}" if isinstance(refusal, PermissionDeniedError) else ""
    why = f"refused ({refusal.reason}{rule}): {refusal.message}"
    return not_run(invocation, ToolErrorKind.FAILED, why)


def short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def clip(text: str, limit: int = 20_000) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters in all)"
