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

from agent.limits import LimitReached, step_clock_stopped
from agent.running import lifecycle
from agent.running.artifacts import artifact_space, updated_event
from agent.running.citations import SEARCH_KNOWLEDGE, citations_of
from agent.running.concurrency import all_or_none
from agent.tool_use import questions
from agent.tool_use.base import PlannedCall
from agent.tool_use.progress import ProgressEvents
from agent.tool_use.results import UNKNOWN_OUTCOME as UNKNOWN_OUTCOME
from agent.tool_use.results import clip, replayed, short, unavailable
from agent.tool_use.resume import Resumes, failed_before
from agent.tool_use.streak import FailureStreak
from core.errors import AgentdError, ToolNotFoundError, ToolUnavailableError
from core.identity import CallContext
from core.text import clean_json, clean_text
from records import events as ev
from records.checkpoints import JournalEntry
from records.tasks import TaskStatus
from records.tools.approvals import ApprovalDecision
from records.tools.invocation import Invocation
from records.tools.outcomes import ToolCallError, ToolCallResult, ToolErrorKind
from tools import progress
from tools.admission import Admission, Verdict
from tools.builtin.artifacts import WRITE_ARTIFACT

if TYPE_CHECKING:
    from agent.running.run import TaskRun

log = structlog.get_logger(__name__)

_DECISIONS: dict[str, Literal["approve", "reject", "edit"]] = {
    "approved": "approve",
    "rejected": "reject",
    "edited": "edit",
}

_Planned = tuple[str, str, dict[str, Any] | None, str, str, bool]
"""A call as `ToolCalls.call` makes it: step id, tool, arguments, why they are unusable,
journal key, and whether it is journalled."""


class ToolCalls:
    """The tool calls of one run, bounded to `max_concurrent_tool_calls` at once."""

    __slots__ = ("_run", "_slots", "_waiting", "journal", "resumes", "streak")

    def __init__(
        self, run: TaskRun, journal: Mapping[str, JournalEntry], failed_in_a_row: int = 0
    ) -> None:
        self._run = run
        self.journal = dict(journal)
        self._slots = asyncio.Semaphore(run.config.max_concurrent_tool_calls)
        self._waiting = 0
        self.streak = FailureStreak(run.config.max_failed_tool_calls, failed_in_a_row)
        """Calls that failed one after another: enough of them stop the run."""
        self.resumes = Resumes(run, self)
        """Waits for ResumeTask after calls that failed resumably."""

    def failing(self) -> LimitReached | None:
        """The signal to stop (TOOL_FAILURES) once too many calls in a row failed."""
        return self.streak.failing()

    def may_repeat(self, name: str) -> bool:
        """Whether a call of `name` may run again after a crash (or is not journalled)."""
        spec = self._run.tool_specs.get(name)
        return spec is None or spec.idempotent

    async def call_all(self, step_id: str, calls: Sequence[PlannedCall]) -> list[ToolCallResult]:
        """Several calls at once (bounded by the slots), results in call order.

        Journal keys are the step id and the call's position, stable across a resume.
        """
        team = self._run.team
        if team is not None:
            team.expect(sum(team.handles(self._run.tool_specs.get(n)) for n, _, _ in calls))
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
        journalled = (
            bool(key)
            and run.durable
            and not bad_arguments
            and not self.may_repeat(name)
            and not self._teamwork(name)  # a child task is its own record: re-attached
        )
        entry = self.journal.get(key) if key else None
        planned = (step_id, name, arguments, bad_arguments, key, journalled)
        if entry is not None and entry.resume_by:  # it waited for ResumeTask when the run stopped
            result = await self._until_resumed(planned, failed_before(entry), entry.resume_by)
        elif journalled and entry is not None:
            return await self._replayed(step_id, name, arguments, entry, key)
        else:
            result = await self._once(planned)
            if self.resumes.waits_for(result):
                result = await self._until_resumed(planned, result)
        self.streak.saw(result)
        self._note(result, arguments)
        return self._for_model(result)

    async def _once(self, planned: _Planned) -> ToolCallResult:
        """The call made once: announced, run (journalled first if it must be), reported."""
        run = self._run
        step_id, name, arguments, bad_arguments, key, journalled = planned
        # The call from here on (the registry, its audit records, the journal, the events):
        # its arguments redacted once.
        invocation = Invocation.of(name, arguments or {})
        call_id = invocation.call_id
        if journalled:
            self.journal[key] = JournalEntry(call_id, name, finished=False)
            await run.checkpoint()
        await run.emit(ev.ToolCallStarted(call_id, step_id, name, invocation.redacted))
        started = time.perf_counter()
        result = await self._outcome(invocation, bad_arguments, key)
        result = replace(result, duration_seconds=time.perf_counter() - started)
        data, error, took, text = result.data, result.error, result.duration_seconds, result.text
        await run.emit(ev.ToolCallFinished(call_id, name, data, error, took, text, result.cached))
        if error is None and name == SEARCH_KNOWLEDGE and run.tool_specs[name].source == "builtin":
            run.citations.extend(citations_of(data))
        if error is None and name == WRITE_ARTIFACT and run.tool_specs[name].source == "builtin":
            update = updated_event(data)
            if update is not None:
                await run.emit(update)
        if journalled:
            self.journal[key] = JournalEntry(call_id, name, True, result.ok, text, data)
            await run.checkpoint()
        return result

    async def _until_resumed(
        self, planned: _Planned, failed: ToolCallResult, resume_by: float = 0.0
    ) -> ToolCallResult:
        """Wait for ResumeTask (`agent.tool_use.resume`) and make the call again, for as long as
        it fails resumably; ResumeWindowClosedError once a window passes."""
        key, journalled = planned[4], planned[5]
        while True:
            await self.resumes.wait(failed, key, resume_by)
            if key and not journalled:
                self.journal.pop(key, None)
            result = await self._once(planned)
            if not self.resumes.waits_for(result):
                return result
            failed, resume_by = result, 0.0

    def _for_model(self, result: ToolCallResult) -> ToolCallResult:
        """The result as the model sees it: long URLs as placeholders."""
        return replace(result, text=self._run.urls.shorten(result.text))

    def _teamwork(self, name: str) -> bool:
        team = self._run.team
        return team is not None and team.handles(self._run.tool_specs.get(name))

    async def _outcome(
        self, invocation: Invocation, bad_arguments: str, key: str = ""
    ) -> ToolCallResult:
        """The result of a call (its text what the model sees; its duration the engine's
        to measure): run (or answered from the cache), refused or not attempted."""
        run = self._run
        call_id, name, arguments = invocation.call_id, invocation.name, invocation.arguments
        if bad_arguments:
            return _failed(invocation, ToolErrorKind.FAILED, f"not called: {bad_arguments}")
        if run.team is not None and self._teamwork(name):
            data, failed, text = await run.team.call(call_id, key, name, dict(arguments))
            return ToolCallResult(call_id, name, data, clip(text), 0.0, failed)
        if run.tool_specs.get(name) is questions.ASK_USER:
            return await self._ask_user(invocation)
        if name not in run.tool_specs:
            # Never run, whatever the model (or a tool's output) asked: recorded and refused.
            await run.registry.refuse(invocation, self._context)
            offered = ", ".join(sorted(run.tool_specs)) or "none"
            why = f"not called: tool {name!r} is not available to this task; available: {offered}"
            return _failed(invocation, ToolErrorKind.FAILED, why)
        try:
            result = await run.embedding_work(self._registry_call(invocation))
        except (ToolUnavailableError, ToolNotFoundError) as gone:
            error = unavailable(name, gone)
            return _failed(invocation, error.kind, error.message)
        except AgentdError as refusal:
            why = f"refused ({refusal.reason}): {refusal.message}"
            return _failed(invocation, ToolErrorKind.FAILED, why)
        # A tool's output is untrusted too: made safe to encode and store.
        data, failed = clean_json(result.data), result.error
        if failed is not None:
            return replace(result, data=data, text=failed.message, cached=False)
        text = clip(clean_text(result.text) or json.dumps(data, default=str))
        return replace(result, data=data, text=text)

    async def _registry_call(self, invocation: Invocation) -> ToolCallResult:
        """The call through the registry (in one of the task's slots), its progress
        reports streamed as `tool_progress` events."""
        run = self._run
        events = ProgressEvents(run, invocation.call_id, run.config.tool_progress_seconds)
        try:
            with progress.listening(events.sink(invocation.name)):
                async with self._slots:
                    result = await self._admitted_and_run(invocation)
        except BaseException:
            events.abandon()
            raise
        await events.close()
        return result

    @property
    def _context(self) -> CallContext:
        """A tool call of the task: what is left of the task's time bounds it."""
        run = self._run
        if not run.persist:
            return run.call
        left = None if run.deadline_at is None else max(0.0, run.deadline_at - time.time())
        task = run.task
        return replace(
            run.call,
            task_id=task.task_id,
            artifact_space=artifact_space(task),
            parent_task_id=task.parent_task_id,
            root_task_id=task.root if task.parent_task_id else "",
            deadline_seconds=left,
        )

    async def _admitted_and_run(self, invocation: Invocation) -> ToolCallResult:
        """The registry's admission of the call, a person's decision when it needs one
        (a task can wait for it), then the run."""
        run, registry = self._run, self._run.registry
        spec = run.tool_specs[invocation.name]  # the tool as the task was given it
        admission = await registry.admit(invocation, self._context, spec=spec)
        can_wait = run.persist and run.approvals is not None
        if admission.verdict is Verdict.NEEDS_APPROVAL and can_wait:
            decision, edited = await self._approve(admission)
            decided = await registry.decided(admission, decision, edited)
            if isinstance(decided, ToolCallResult):  # rejected
                return decided
            admission = decided
        return await registry.run(admission, bypass_cache=run.task.bypass_tool_cache)

    async def _approve(self, admission: Admission) -> tuple[ApprovalDecision, Invocation | None]:
        """A person's decision on a call that needs approval, and the invocation with the
        arguments they replaced the proposed ones with (if they did)."""
        invocation, name = admission.invocation, admission.tool.spec.name
        call_id = invocation.call_id
        decision = await self.wait_for_person(
            call_id,
            f"waiting for approval of {name}",
            ev.ApprovalRequested(call_id, name, invocation.redacted, admission.decision.reason),
            f"no decision on {name} came in time",
        )
        edited = None if decision.arguments is None else invocation.edited(decision.arguments)
        shown = None if edited is None else edited.redacted
        label, by = _DECISIONS[decision.label], decision.decided_by
        await self._run.emit(ev.ApprovalDecided(call_id, label, by, decision.comment, shown))
        await self.no_longer_waiting(f"{decision.label} by {decision.decided_by}")
        return decision, edited

    async def _ask_user(self, invocation: Invocation) -> ToolCallResult:
        """Ask the caller (`agent.tool_use.questions`): the answer is the call's result."""
        run = self._run
        question = str(invocation.arguments.get("question", "")).strip()
        if not question or run.approvals is None or not run.persist:
            why = "the question is empty" if not question else "only a task can wait"
            return _failed(invocation, ToolErrorKind.FAILED, f"not asked: {why}")
        request_id = questions.PREFIX + invocation.call_id
        try:
            answer = await self.wait_for_person(
                request_id,
                "waiting for an answer to the agent's question",
                ev.InputRequested(request_id, question[: questions.MAX_QUESTION_CHARS]),
                "the question was not answered",
            )
        except AgentdError as expired:
            why = f"no answer came: {expired.message}"
            return _failed(invocation, ToolErrorKind.FAILED, why)
        await run.emit(ev.InputProvided(request_id, answer.decided_by, answer.comment))
        await self.no_longer_waiting(f"answered by {answer.decided_by}")
        data = {"answer": answer.comment}
        return ToolCallResult(invocation.call_id, invocation.name, data, answer.comment, 0.0)

    async def wait_for_person(
        self,
        slot_id: str,
        waiting: str,
        announcement: ev.EventPayload,
        unanswered: str,
        ttl: float | None = None,
    ) -> ApprovalDecision:
        """Pause for a person: INPUT_REQUIRED (`waiting`) and `announcement`, then what they
        left in the slot. The step's clock stops while waiting; the task's deadline keeps
        running. When the wait fails (an expired slot) the task is RUNNING again
        (`unanswered`) before the error goes on; a cancel leaves the status to the end."""
        run = self._run
        approvals = run.approvals
        assert approvals is not None
        task_id = run.task.task_id
        if ttl is None:  # by default, the slot lasts as long as the task may
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
                await self.no_longer_waiting(unanswered)
            raise
        self._waiting -= 1
        await approvals.close(task_id, slot_id)
        return decision

    async def person_waits(self, detail: str) -> None:
        """Something of the task (a child task) waits for a person: INPUT_REQUIRED."""
        self._waiting += 1
        if self._waiting == 1:
            await lifecycle.set_waiting(self._run, detail)

    async def person_answered(self, detail: str) -> None:
        """What `person_waits` announced moved on: RUNNING again once nothing waits."""
        self._waiting = max(0, self._waiting - 1)
        await self.no_longer_waiting(detail)

    async def no_longer_waiting(self, detail: str) -> None:
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
        result = await replayed(self._run, self.journal, step_id, name, entry, key)
        self._note(result, arguments)
        return self._for_model(result)

    def _note(self, result: ToolCallResult, arguments: dict[str, Any] | None) -> None:
        self._run.notes.append(
            f"{result.tool_name}({short(arguments)}) -> "
            f"{'' if result.ok else 'error: '}{short(result.text, 500)}"
        )


def _failed(invocation: Invocation, kind: ToolErrorKind, message: str) -> ToolCallResult:
    """A call that did not run (or was refused), as its result."""
    error = ToolCallError(kind, message)
    return ToolCallResult(invocation.call_id, invocation.name, None, message, 0.0, error)
