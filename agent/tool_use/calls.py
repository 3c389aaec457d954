"""A running task's tool calls: the registry, the crash journal, and the waits that park it.

Every call a mode makes goes through `ToolCalls` and comes back as a
`ToolCallResult` whose `text` is what the model sees: refusals and failures
become text too, never exceptions. A call of a tool that may not be repeated
is journalled before it runs; after a takeover the journal tells whether it
finished (its result is reused) or was cut off (its outcome is unknown and it
is not called again).

A call that must wait — for a person's approval (`people`), an answer to the agent's
question, a child task (`agent.teams`), ResumeTask after a resumable failure
(`resume`) — raises `agent.parked.Parked` once its wait is open, and the run parks:
the calls of its batch finish first and their results are kept in the journal, so the
woken run, which makes the same calls again, runs none of them twice; the call that
waited is made again under its call id and reads what ended its wait.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import structlog

from agent.limits import LimitReached
from agent.parked import Parked, parked_or
from agent.running.artifacts import artifact_space, updated_event
from agent.running.citations import SEARCH_KNOWLEDGE, citations_of
from agent.running.concurrency import all_or_none
from agent.running.seams import PlannedCall
from agent.tool_use import questions
from agent.tool_use.people import PersonWaits
from agent.tool_use.progress import ProgressEvents
from agent.tool_use.results import UNKNOWN_OUTCOME as UNKNOWN_OUTCOME
from agent.tool_use.results import clip, replayed, short, unavailable
from agent.tool_use.resume import Resumes
from agent.tool_use.streak import FailureStreak
from core.errors import AgentdError, ToolNotFoundError, ToolUnavailableError
from core.identity import CallContext
from core.text import clean_json, clean_text
from records import events as ev
from records.checkpoints import JournalEntry
from records.tools.invocation import Invocation
from records.tools.outcomes import ToolCallError, ToolCallResult, ToolErrorKind
from tools import progress
from tools.admission import Admission, Verdict
from tools.builtin.artifacts import WRITE_ARTIFACT

if TYPE_CHECKING:
    from agent.running.run import TaskRun

log = structlog.get_logger(__name__)

_Planned = tuple[str, str, dict[str, Any] | None, str, str, bool]
"""A call as `ToolCalls.call` makes it: step id, tool, arguments, why they are unusable,
journal key, and whether it is journalled."""


class ToolCalls:
    """The tool calls of one run, bounded to `max_concurrent_tool_calls` at once."""

    __slots__ = ("_run", "_slots", "journal", "people", "resumes", "streak")

    def __init__(
        self, run: TaskRun, journal: Mapping[str, JournalEntry], failed_in_a_row: int = 0
    ) -> None:
        self._run = run
        self.journal = dict(journal)
        self._slots = asyncio.Semaphore(run.config.max_concurrent_tool_calls)
        self.streak = FailureStreak(run.config.max_failed_tool_calls, failed_in_a_row)
        """Calls that failed one after another: enough of them stop the run."""
        self.people = PersonWaits(run)
        """The run's waits for a person: approvals and questions."""
        self.resumes = Resumes(run, self.people)
        """Waits for ResumeTask after calls that failed resumably."""

    @property
    def failed_in_a_row(self) -> int:
        return self.streak.count

    def failing(self) -> LimitReached | None:
        """The signal to stop (TOOL_FAILURES) once too many calls in a row failed."""
        return self.streak.failing()

    def may_repeat(self, name: str) -> bool:
        """Whether a call of `name` may run again after a crash (or is not journalled)."""
        spec = self._run.tool_specs.get(name)
        return spec is None or spec.idempotent

    async def call_all(self, step_id: str, calls: Sequence[PlannedCall]) -> list[ToolCallResult]:
        """Several calls at once (bounded by the slots), results in call order. When some
        must wait, the others finish first, their results are kept for the woken run, and
        Parked goes on.

        Journal keys are the step id and the call's position, stable across a resume.
        """
        team = self._run.team
        if team is not None:
            team.expect(sum(team.handles(self._run.tool_specs.get(n)) for n, _, _ in calls))
        keys = [f"{step_id}/{i}" for i in range(len(calls))]
        outcomes = await all_or_none(
            parked_or(self.call(step_id, n, a, bad_arguments=b, key=k))
            for (n, a, b), k in zip(calls, keys, strict=True)
        )
        waiting = [o for o in outcomes if isinstance(o, Parked)]
        if waiting:
            for key, outcome in zip(keys, outcomes, strict=True):
                if isinstance(outcome, ToolCallResult):
                    self.keep(key, outcome)
            raise Parked.merged(waiting)
        return [o for o in outcomes if isinstance(o, ToolCallResult)]

    def keep(self, key: str, result: ToolCallResult) -> None:
        """Keep a finished call's result for the woken run (its batch parks)."""
        entry = self.journal.get(key)
        if entry is None or not entry.finished:
            self.journal[key] = JournalEntry(
                result.call_id, result.tool_name, True, result.ok, result.text, result.data
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
        """Run one tool call; refusals and failures become its result's text, never raise
        (but Parked, when it must wait).

        `key` names the call for the journal: the same key on a resumed run is
        the same call. A call of a tool that may not be repeated is journalled
        before it runs; if the journal already has it, it is not run again.
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
        if entry is not None and entry.resume_by:  # it waited for ResumeTask: resumed?
            await self.resumes.resumed(entry)
            if not journalled:
                self.journal.pop(key, None)
            result = await self._once(planned)
        elif entry is not None and entry.waiting:  # it waited: the same call again
            result = await self._once(planned, entry)
        elif entry is not None and (entry.finished or journalled):
            replayed = await self._replayed(step_id, name, arguments, entry, key)
            if not journalled:  # kept only for the woken run (its batch parked): taken
                self.journal.pop(key, None)
            return replayed
        else:
            result = await self._once(planned)
        if self.resumes.waits_for(result):
            await self.resumes.wait(result, key, self.journal)
        self.streak.saw(result)
        self._note(result, arguments)
        return self._for_model(result)

    async def _once(self, planned: _Planned, waited: JournalEntry | None = None) -> ToolCallResult:
        """The call made (announced, run, reported), or, `waited` on, made again under
        its call id, with the arguments it was made with."""
        run = self._run
        step_id, name, arguments, bad_arguments, key, journalled = planned
        # The call from here on (the registry, its audit records, the journal, the events):
        # its arguments redacted once.
        if waited is not None:
            given = waited.arguments if waited.arguments is not None else arguments or {}
            invocation = Invocation.of(name, given, waited.call_id)
        else:
            invocation = Invocation.of(name, arguments or {})
            await run.emit(
                ev.ToolCallStarted(invocation.call_id, step_id, name, invocation.redacted)
            )
        call_id = invocation.call_id
        started = time.perf_counter()
        try:
            again = waited is not None
            result = await self._outcome(invocation, bad_arguments, key, journalled, again)
        except Parked as parked:
            if key:  # what the woken run makes again
                self.journal[key] = JournalEntry(
                    call_id,
                    name,
                    False,
                    waiting=parked.waits[0].slot if parked.waits else name,
                    arguments=dict(invocation.arguments),
                    relayed=parked.relayed,
                )
            raise
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
        elif key in self.journal:  # it waited: the woken run's entry is done with
            del self.journal[key]
        return result

    def _for_model(self, result: ToolCallResult) -> ToolCallResult:
        """The result as the model sees it: long URLs as placeholders."""
        return replace(result, text=self._run.urls.shorten(result.text))

    def _teamwork(self, name: str) -> bool:
        team = self._run.team
        return team is not None and team.handles(self._run.tool_specs.get(name))

    async def _outcome(
        self,
        invocation: Invocation,
        bad_arguments: str,
        key: str = "",
        journalled: bool = False,
        again: bool = False,
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
            admitted = await self._admitted(invocation, again)
            if isinstance(admitted, ToolCallResult):  # rejected, or no decision in time
                return admitted
            if journalled:  # recorded as started before it runs
                self.journal[key] = JournalEntry(call_id, name, finished=False)
                await run.checkpoint()
            result = await run.embedding_work(self._registry_run(admitted))
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

    async def _admitted(self, invocation: Invocation, again: bool) -> Admission | ToolCallResult:
        """The registry's admission of the call and, when it needs one, a person's
        decision (Parked until there is one): the call admitted to run, or its result
        (rejected, or no decision before the wait's deadline). A call made `again` by
        a woken run, whose approval was asked for, stands by that decision although the
        policy since stopped asking for one (a person's rejection is never undone)."""
        run, registry = self._run, self._run.registry
        spec = run.tool_specs[invocation.name]  # the tool as the task was given it
        admission = await registry.admit(invocation, self._context, spec=spec)
        if not run.can_wait or admission.verdict is Verdict.DENIED:
            return admission
        if admission.verdict is not Verdict.NEEDS_APPROVAL and not (
            again and await self.people.asked(invocation.call_id)
        ):
            return admission
        decided = await self.people.approval(invocation, spec.name, admission.decision.reason)
        if decided is None:
            what = f"no decision on {spec.name} came before its deadline"
            return await registry.timed_out(admission, what)
        return await registry.decided(admission, *decided)

    async def _registry_run(self, admission: Admission) -> ToolCallResult:
        """An admitted call run through the registry, in one of the task's slots (taken
        only now: a call waiting for a person holds none), its progress reports streamed
        as `tool_progress` events."""
        run = self._run
        invocation = admission.invocation
        events = ProgressEvents(run, invocation.call_id, run.config.tool_progress_seconds)
        try:
            with progress.listening(events.sink(invocation.name)):
                async with self._slots:
                    bypass = run.task.bypass_tool_cache
                    result = await run.registry.run(admission, bypass_cache=bypass)
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

    async def _ask_user(self, invocation: Invocation) -> ToolCallResult:
        """Ask the caller (`agent.tool_use.questions`): the answer is the call's result."""
        run = self._run
        question = str(invocation.arguments.get("question", "")).strip()
        if not question or not run.can_wait:
            why = "the question is empty" if not question else "only a task can wait"
            return _failed(invocation, ToolErrorKind.FAILED, f"not asked: {why}")
        request_id = questions.PREFIX + invocation.call_id
        asked = question[: questions.MAX_QUESTION_CHARS]
        answered = await self.people.question(request_id, asked)
        if answered is None:
            why = "no answer came before the question's deadline"
            return _failed(invocation, ToolErrorKind.TIMEOUT, f"no answer came: {why}")
        text, _ = answered
        return ToolCallResult(invocation.call_id, invocation.name, {"answer": text}, text, 0.0)

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
