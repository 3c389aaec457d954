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

from agent.guardrails.runs import CallsGuard
from agent.limits import LimitReached
from agent.parked import Parked, parked_or
from agent.running.artifacts import updated_event
from agent.running.citations import SEARCH_KNOWLEDGE, citations_of
from agent.running.concurrency import all_or_none
from agent.running.seams import PlannedCall, RunReplay
from agent.tool_use import questions
from agent.tool_use.files import keep_files
from agent.tool_use.finished import finished
from agent.tool_use.people import PersonWaits
from agent.tool_use.progress import ProgressEvents
from agent.tool_use.results import UNKNOWN_OUTCOME as UNKNOWN_OUTCOME
from agent.tool_use.results import clip, entry_of, not_run, refused, replayed, short, unavailable
from agent.tool_use.resume import Resumes
from agent.tool_use.streak import FailureStreak
from core.errors import (
    AgentdError,
    GuardrailBlockedError,
    ToolNotFoundError,
    ToolUnavailableError,
)
from core.text import clean_json, clean_text
from records import events as ev
from records.checkpoints import JournalEntry
from records.messages import ToolDefinition
from records.tools.invocation import Invocation
from records.tools.model import ToolSpec
from records.tools.outcomes import ToolCallResult, ToolErrorKind
from records.traces.model import ToolSource
from tools import progress
from tools.admission import Admission, Verdict
from tools.builtin.artifacts import WRITE_ARTIFACT
from tools.catalog import ENGINE
from tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent.running.run import TaskRun

log = structlog.get_logger(__name__)
LIVE = ToolSource.LIVE

_Planned = tuple[str, str, dict[str, Any] | None, str, str, bool]
"""A call as `ToolCalls.call` makes it: step id, tool, arguments, why they are unusable,
journal key, and whether it is journalled."""


class ToolCalls:
    """The tool calls of one run, bounded to `max_concurrent_tool_calls` at once."""

    __slots__ = (
        "_guard",
        "_handed",
        "_run",
        "_slots",
        "journal",
        "people",
        "registry",
        "replay",
        "resumes",
        "specs",
        "streak",
    )

    def __init__(
        self,
        run: TaskRun,
        registry: ToolRegistry,
        specs: Mapping[str, ToolSpec],
        journal: Mapping[str, JournalEntry],
        failed_in_a_row: int = 0,
        replay: RunReplay | None = None,
    ) -> None:
        self._run = run
        self.replay = replay
        """For a replay: consulted at the door before any call runs (`replaying`)."""
        self.registry = registry
        """Where every call is admitted, run and audited."""
        self.specs = dict(specs)
        """The tools the task may use, by name, as it was given them."""
        self.journal = dict(journal)
        self._slots = asyncio.Semaphore(run.config.tools.max_concurrent_tool_calls)
        self.streak = FailureStreak(run.config.tools.max_failed_tool_calls, failed_in_a_row)
        """Calls that failed one after another: enough of them stop the run."""
        self.people = PersonWaits(run)
        """The run's waits for a person: approvals and questions."""
        self._handed: set[str] = set()
        """Calls of the engine's own tools admitted and handed to it (`_by_engine`)."""
        self.resumes = Resumes(run, self.people)
        """Waits for ResumeTask after calls that failed resumably."""
        guard = run.transcript.guard
        self._guard = CallsGuard(guard, run.transcript.emit) if guard is not None else None

    def definitions(self, names: Sequence[str] | None = None) -> list[ToolDefinition]:
        """The tools (all, or those `names`) as the model is offered them."""
        chosen = self.specs if names is None else {n: self.specs[n] for n in names}
        return [ToolDefinition(s.name, s.description, s.parameters) for s in chosen.values()]

    @property
    def failed_in_a_row(self) -> int:
        return self.streak.count

    def failing(self) -> LimitReached | None:
        """The signal to stop (TOOL_FAILURES) once too many calls in a row failed."""
        return self.streak.failing()

    def may_repeat(self, name: str) -> bool:
        """Whether a call of `name` may run again after a crash (or is not journalled)."""
        spec = self.specs.get(name)
        return spec is None or spec.idempotent

    async def call_all(self, step_id: str, calls: Sequence[PlannedCall]) -> list[ToolCallResult]:
        """Several calls at once (bounded by the slots), results in call order. When some
        must wait, the others finish first, their results are kept for the woken run, and
        Parked goes on.

        Journal keys are the step id and the call's position, stable across a resume.
        """
        team = self._run.team
        if team is not None:
            team.expect(sum(team.handles(self.specs.get(n)) for n, _, _ in calls))
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
            self.journal[key] = entry_of(result)

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
            arguments = run.transcript.urls.restore_value(arguments)
        journalled = (
            bool(key)
            and run.state.durable
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
        elif entry is not None and (entry.finished or journalled):  # met again on a resumed run
            result = await replayed(run, self.journal, step_id, name, entry, key)
            if not journalled:  # kept only for the woken run (its batch parked): taken
                self.journal.pop(key, None)
            self._note(result, arguments)
            return self._for_model(result)
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
            await run.transcript.emit(
                ev.ToolCallStarted(invocation.call_id, step_id, name, invocation.redacted)
            )
        call_id = invocation.call_id
        started = time.perf_counter()
        try:
            again = waited is not None
            if waited is not None and waited.handed_on:  # admitted and audited before it parked
                self._handed.add(call_id)
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
                    handed_on=call_id in self._handed,
                )
            raise
        result = replace(result, duration_seconds=time.perf_counter() - started)
        source = self.replay.sources.get(call_id, LIVE) if self.replay else LIVE  # `replaying`
        await finished(run, step_id, invocation, result, key, source)  # its event, its trace
        data, error = result.data, result.error
        if error is None and name == SEARCH_KNOWLEDGE and self.specs[name].source == "builtin":
            run.transcript.citations.extend(citations_of(data))
        wrote = source is LIVE and name == WRITE_ARTIFACT  # a replay's recorded write wrote none
        if error is None and wrote and self.specs[name].source == "builtin":
            update = updated_event(data)
            if update is not None:
                await run.transcript.emit(update)
        if journalled:
            self.journal[key] = entry_of(result)
            await run.checkpoint()
        elif key in self.journal:  # it waited: the woken run's entry is done with
            del self.journal[key]
        return result

    def _for_model(self, result: ToolCallResult) -> ToolCallResult:
        """The result as the model sees it: long URLs as placeholders."""
        return replace(result, text=self._run.transcript.urls.shorten(result.text))

    def _teamwork(self, name: str) -> bool:
        team = self._run.team
        return team is not None and team.handles(self.specs.get(name))

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
        call_id, name = invocation.call_id, invocation.name
        if bad_arguments:
            return not_run(invocation, ToolErrorKind.FAILED, f"not called: {bad_arguments}")
        spec = self.specs.get(name)
        if self.replay is not None:  # a replay: answered from the recording (`replaying`)
            answered = await self.replay.answer(invocation, spec, key, run.tool_context())
            if answered is not None:
                return answered
        if spec is not None and spec.source == ENGINE:
            return await self._by_engine(invocation, key, again)
        if name not in self.specs:
            # Never run, whatever the model (or a tool's output) asked: recorded and refused.
            await self.registry.refuse(invocation, run.tool_context())
            offered = ", ".join(sorted(self.specs)) or "none"
            why = f"not called: tool {name!r} is not available to this task; available: {offered}"
            return not_run(invocation, ToolErrorKind.FAILED, why)
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
            return not_run(invocation, error.kind, error.message)
        except GuardrailBlockedError:
            raise  # not an observation: a guardrail that blocks stops the task
        except AgentdError as refusal:
            return refused(invocation, refusal)
        # A tool's output is untrusted too: made safe to encode and store.
        data, failed = clean_json(result.data), result.error
        if failed is not None:
            return replace(result, data=data, text=failed.message, cached=False)
        text = clip(clean_text(result.text) or json.dumps(data, default=str))
        return await keep_files(run, self, replace(result, data=data, text=text), key)

    async def _admitted(self, invocation: Invocation, again: bool) -> Admission | ToolCallResult:
        """The registry's admission of the call and, when it needs one, a person's
        decision (Parked until there is one): the call admitted to run, or its result
        (rejected, or no decision before the wait's deadline). A call made `again` by
        a woken run, whose approval was asked for, stands by that decision although the
        policy since stopped asking for one (a person's rejection is never undone)."""
        run, registry = self._run, self.registry
        spec = self.specs[invocation.name]  # the tool as the task was given it
        admission = await registry.admit(
            invocation, run.tool_context(), spec=spec, guard=self._guard
        )
        if not run.state.can_wait or admission.verdict is Verdict.DENIED:
            return admission
        if admission.verdict is not Verdict.NEEDS_APPROVAL and not (
            again and await self.people.asked(invocation.call_id)
        ):
            return admission
        decided = await self.people.approval(invocation, spec.name, admission.decision)
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
        events = ProgressEvents(run, invocation.call_id, run.config.tools.tool_progress_seconds)
        try:
            with progress.listening(events.sink(invocation.name)):
                async with self._slots:
                    bypass = run.task.bypass_tool_cache
                    result = await self.registry.run(admission, bypass_cache=bypass)
        except BaseException:
            events.abandon()
            raise
        await events.close()
        return result

    async def _by_engine(self, invocation: Invocation, key: str, again: bool) -> ToolCallResult:
        """A call of a tool the engine runs itself (`ask_user`, a delegation, a panel),
        through the one door: admitted by the registry under the task's grants (and a
        person's approval when the policy asks for one), audited as handed on, then run
        here. A woken run's call that was handed on before it parked is not admitted
        again."""
        run, call_id = self._run, invocation.call_id
        if call_id not in self._handed:
            try:
                admitted = await self._admitted(invocation, again)
                if isinstance(admitted, ToolCallResult):  # rejected, or no decision in time
                    return admitted
                await self.registry.handed_on(admitted)
            except AgentdError as refusal:
                return refused(invocation, refusal)
            invocation = admitted.invocation  # as a person may have edited it
            self._handed.add(call_id)
        if invocation.name == questions.ASK_USER.name:
            return await questions.ask(self.people, invocation, can_wait=run.state.can_wait)
        if run.team is None or not self._teamwork(invocation.name):  # the Plan RPC's run
            why = f"not called: {invocation.name!r} has no team to run it here"
            return not_run(invocation, ToolErrorKind.FAILED, why)
        arguments = dict(invocation.arguments)
        data, failed, text = await run.team.call(call_id, key, invocation.name, arguments)
        return ToolCallResult(call_id, invocation.name, data, clip(text), 0.0, failed)

    def _note(self, result: ToolCallResult, arguments: dict[str, Any] | None) -> None:
        self._run.transcript.notes.append(
            f"{result.tool_name}({short(arguments)}) -> "
            f"{'' if result.ok else 'error: '}{short(result.text, 500)}"
        )
