"""A running task's tool calls: the registry, the crash journal, and the wait for a person.

Every call a mode makes goes through `ToolCalls` and comes back as a
`ToolCallResult` whose `text` is what the model sees: refusals and failures
become text too, never exceptions. A call of a tool that may not be repeated
is journalled before it starts; after a takeover the journal tells whether it
finished (its result is reused) or was cut off (its outcome is unknown and it
is not called again). A call needing approval pauses the task (INPUT_REQUIRED)
until a person decides.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

import structlog

from agent import events as ev
from agent import lifecycle, questions
from agent.concurrency import all_or_none
from agent.limits import step_clock_stopped
from agent.resume import JournalEntry
from agent.tasks import TaskStatus
from core.errors import AgentdError, ToolNotFoundError, ToolUnavailableError
from core.identity import CallContext
from core.secrets import redact
from core.text import clean_json, clean_text
from tools.approvals import ApprovalDecision
from tools.model import ToolSpec
from tools.outcomes import ToolCallError, ToolCallResult, ToolErrorKind
from tools.registry import new_call_id

if TYPE_CHECKING:
    from agent.run import TaskRun

log = structlog.get_logger(__name__)

UNKNOWN_OUTCOME = (
    "outcome unknown: the server process running this call stopped before the call reported "
    "back, and {tool} may not be repeated safely, so it was not called again. Check whether "
    "it took effect before relying on it or calling it again."
)

_DECISIONS: dict[str, Literal["approve", "reject", "edit"]] = {
    "approved": "approve",
    "rejected": "reject",
    "edited": "edit",
}

PlannedCall = tuple[str, dict[str, Any] | None, str]
"""A call a mode wants: tool name, arguments (None when they did not parse), and why not."""


class ToolCalls:
    """The tool calls of one run, bounded to `max_concurrent_tool_calls` at once."""

    __slots__ = ("_run", "_slots", "_waiting", "journal")

    def __init__(self, run: TaskRun, journal: Mapping[str, JournalEntry]) -> None:
        self._run = run
        self.journal = dict(journal)
        self._slots = asyncio.Semaphore(run.config.max_concurrent_tool_calls)
        self._waiting = 0

    def may_repeat(self, name: str) -> bool:
        """Whether a call of `name` may run again after a crash (or is not journalled)."""
        spec = self._run.tool_specs.get(name)
        return spec is None or spec.idempotent

    async def call_all(self, step_id: str, calls: Sequence[PlannedCall]) -> list[ToolCallResult]:
        """Several calls at once (bounded by the slots), results in call order.

        Journal keys are the step id and the call's position, stable across a resume.
        """
        return await all_or_none(
            self.call(step_id, n, a, bad_arguments=b, key=f"{step_id}/{i}")
            for i, (n, a, b) in enumerate(calls)
        )

    async def call(
        self,
        step_id: str,
        name: str,
        arguments: dict[str, Any] | None,
        *,
        bad_arguments: str = "",
        key: str = "",
    ) -> ToolCallResult:
        """Run one tool call; refusals and failures become its result's text, never raise.

        `key` names the call for the journal: the same key on a resumed run is
        the same call. A call of a tool that may not be repeated is journalled
        before it starts; if the journal already has it, it is not run again.
        """
        run = self._run
        if arguments is not None:  # the model's placeholders stand for these URLs
            arguments = run.urls.restore_value(arguments)
        journalled = bool(key) and run.durable and not bad_arguments and not self.may_repeat(name)
        if journalled:
            entry = self.journal.get(key)
            if entry is not None:
                return await self._replayed(step_id, name, arguments, entry, key)
            call_id = new_call_id()
            self.journal[key] = JournalEntry(call_id, name, finished=False)
            await run.checkpoint()
        else:
            call_id = new_call_id()
        await run.emit(ev.ToolCallStarted(call_id, step_id, name, redact(arguments or {})))
        started = time.perf_counter()
        data, error, text, cached = await self._outcome(call_id, name, arguments, bad_arguments)
        took = time.perf_counter() - started
        result = ToolCallResult(call_id, name, data, text, took, error, cached)
        await run.emit(ev.ToolCallFinished(call_id, name, data, error, took, text, cached))
        if journalled:
            self.journal[key] = JournalEntry(call_id, name, True, result.ok, text, data)
            await run.checkpoint()
        self._note(result, arguments)
        return self._for_model(result)

    def _for_model(self, result: ToolCallResult) -> ToolCallResult:
        """The result as the model sees it: long URLs as placeholders."""
        return replace(result, text=self._run.urls.shorten(result.text))

    async def _outcome(
        self, call_id: str, name: str, arguments: dict[str, Any] | None, bad_arguments: str
    ) -> tuple[Any, ToolCallError | None, str, bool]:
        """(data, error, the text the model sees, whether it came from the cache) of a
        call: run (or answered from the cache), refused or not attempted."""
        run = self._run
        if bad_arguments:
            error = ToolCallError(ToolErrorKind.FAILED, f"not called: {bad_arguments}")
            return None, error, error.message, False
        if run.tool_specs.get(name) is questions.ASK_USER:
            return await self._ask_user(call_id, arguments)
        if name not in run.tool_specs:
            # Never run, whatever the model (or a tool's output) asked: recorded and refused.
            await run.registry.refuse(name, arguments or {}, self._context)
            error = ToolCallError(
                ToolErrorKind.FAILED,
                f"not called: tool {name!r} is not available to this task; "
                f"available: {', '.join(sorted(run.tool_specs)) or 'none'}",
            )
            return None, error, error.message, False
        gate = self._approve if run.persist and run.approvals is not None else None
        async with self._slots:
            try:
                result = await run.embedding_work(
                    run.registry.call(
                        name,
                        arguments or {},
                        self._context,
                        approval=gate,
                        call_id=call_id,
                        bypass_cache=run.task.bypass_tool_cache,
                        spec=run.tool_specs[name],  # the tool as the task was given it
                    )
                )
            except (ToolUnavailableError, ToolNotFoundError) as gone:
                error = _unavailable(name, gone)
                return None, error, error.message, False
            except AgentdError as refusal:
                error = ToolCallError(
                    ToolErrorKind.FAILED, f"refused ({refusal.reason}): {refusal.message}"
                )
                return None, error, error.message, False
        # A tool's output is untrusted too: made safe to encode and store.
        data, failed = clean_json(result.data), result.error
        if failed is not None:
            return data, failed, failed.message, False
        text = _clip(clean_text(result.text) or json.dumps(data, default=str))
        return data, None, text, result.cached

    @property
    def _context(self) -> CallContext:
        """A tool call of the task: what is left of the task's time bounds it."""
        run = self._run
        if not run.persist:
            return run.call
        left = None if run.deadline_at is None else max(0.0, run.deadline_at - time.time())
        return replace(run.call, task_id=run.task.task_id, deadline_seconds=left)

    async def _approve(
        self, call_id: str, tool: ToolSpec, arguments: Mapping[str, Any], reason: str
    ) -> ApprovalDecision:
        """A person's decision on a call that needs approval (the registry's gate)."""
        decision = await self._wait_for_person(
            call_id,
            f"waiting for approval of {tool.name}",
            ev.ApprovalRequested(call_id, tool.name, dict(arguments), reason),
            f"no decision on {tool.name} came in time",
        )
        edited = redact(dict(decision.arguments)) if decision.arguments is not None else None
        await self._run.emit(
            ev.ApprovalDecided(
                call_id, _DECISIONS[decision.label], decision.decided_by, decision.comment, edited
            )
        )
        await self._no_longer_waiting(f"{decision.label} by {decision.decided_by}")
        return decision

    async def _ask_user(
        self, call_id: str, arguments: dict[str, Any] | None
    ) -> tuple[Any, ToolCallError | None, str, bool]:
        """Ask the caller (`agent.questions`): the answer is the call's result."""
        run = self._run
        question = str((arguments or {}).get("question", "")).strip()
        if not question or run.approvals is None or not run.persist:
            why = "the question is empty" if not question else "only a task can wait"
            error = ToolCallError(ToolErrorKind.FAILED, f"not asked: {why}")
            return None, error, error.message, False
        request_id = questions.PREFIX + call_id
        try:
            answer = await self._wait_for_person(
                request_id,
                "waiting for an answer to the agent's question",
                ev.InputRequested(request_id, question[: questions.MAX_QUESTION_CHARS]),
                "the question was not answered",
            )
        except AgentdError as expired:
            error = ToolCallError(ToolErrorKind.FAILED, f"no answer came: {expired.message}")
            return None, error, error.message, False
        await run.emit(ev.InputProvided(request_id, answer.decided_by, answer.comment))
        await self._no_longer_waiting(f"answered by {answer.decided_by}")
        return {"answer": answer.comment}, None, answer.comment, False

    async def _wait_for_person(
        self, slot_id: str, waiting: str, announcement: ev.EventPayload, unanswered: str
    ) -> ApprovalDecision:
        """Pause for a person: INPUT_REQUIRED (`waiting`) and `announcement`, then what they
        left in the slot. The step's clock stops while waiting; the task's deadline keeps
        running. When the wait fails (an expired slot) the task is RUNNING again
        (`unanswered`) before the error goes on; a cancel leaves the status to the end."""
        run = self._run
        approvals = run.approvals
        assert approvals is not None
        task_id = run.task.task_id
        ttl = max(60.0, (run.deadline_at or time.time() + 3600.0) - time.time())
        await approvals.open(run.task.tenant, task_id, slot_id, ttl)
        self._waiting += 1
        try:
            if self._waiting == 1:
                await lifecycle.set_waiting(run, waiting)
            await run.emit(announcement)
            async with step_clock_stopped():
                decision = await approvals.wait(task_id, slot_id)
        except BaseException as error:
            self._waiting -= 1
            await asyncio.shield(approvals.close(task_id, slot_id))
            if not isinstance(error, asyncio.CancelledError):  # cancelled: the task is ending
                await self._no_longer_waiting(unanswered)
            raise
        self._waiting -= 1
        await approvals.close(task_id, slot_id)
        return decision

    async def _no_longer_waiting(self, detail: str) -> None:
        """RUNNING again once no call of the task waits for a person."""
        if self._waiting == 0 and self._run.task.status is TaskStatus.INPUT_REQUIRED:
            await lifecycle.set_running(self._run, detail)

    async def _replayed(
        self,
        step_id: str,
        name: str,
        arguments: dict[str, Any] | None,
        entry: JournalEntry,
        key: str,
    ) -> ToolCallResult:
        """A journalled call met again on a resumed run: its result, or an unknown outcome."""
        run = self._run
        if entry.finished:
            failed = None if entry.ok else ToolCallError(ToolErrorKind.FAILED, entry.text)
            result = ToolCallResult(entry.call_id, name, entry.data, entry.text, 0.0, failed)
        else:
            text = UNKNOWN_OUTCOME.format(tool=name)
            error = ToolCallError(ToolErrorKind.OUTCOME_UNKNOWN, text)
            await run.emit(ev.ToolCallFinished(entry.call_id, name, None, error, 0.0, text))
            result = ToolCallResult(entry.call_id, name, None, text, 0.0, error)
            self.journal[key] = JournalEntry(entry.call_id, name, True, False, text)
            await run.checkpoint()
            log.warning(
                "tool call outcome unknown after takeover; not repeated",
                task_id=run.task.task_id,
                tool=name,
                call_id=entry.call_id,
                step_id=step_id,
            )
        self._note(result, arguments)
        return self._for_model(result)

    def _note(self, result: ToolCallResult, arguments: dict[str, Any] | None) -> None:
        self._run.notes.append(
            f"{result.tool_name}({_short(arguments)}) -> "
            f"{'' if result.ok else 'error: '}{_short(result.text, 500)}"
        )


def _unavailable(name: str, error: ToolUnavailableError | ToolNotFoundError) -> ToolCallError:
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


def _short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _clip(text: str, limit: int = 20_000) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters in all)"
