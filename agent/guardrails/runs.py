"""A run's guardrails (`agent.guardrails`): what it checks, and how a decision is told.

The run's `RunGuard` holds its task's guard (the server's checks, then its agent's), the
subject they judge (tenant, agent, user, task) and where decisions go. Each decision that
found something becomes `guardrail_decided` events (one per finding: check, rule, point,
action, reason; never the text; counted by check, point and action as every event is)
and an audit record through the sink the engine was given. A blocking decision then
stops the task: it raises `GuardrailBlockedError`, which ends it FAILED with the stop
reason `guardrail`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Protocol

from agent import metrics
from agent.guardrails.declarations import parse
from agent.guardrails.guard import Guard, verdict
from agent.guardrails.stream import GuardedStream
from agent.limits import GuardrailPolicy
from core.errors import GuardrailBlockedError
from core.identity import CallContext
from records.agents.definition import AgentDefinition
from records.guardrails import Action, Point, Scope, Subject, Verdict
from records.guardrails.events import GuardrailDecided, GuardrailRecord
from records.tasks import Task

Emit = Callable[[GuardrailDecided], Awaitable[None]]


class GuardrailConfigError(ValueError):
    """An agent's guardrails no longer make a guard (a kind it names is gone)."""


class DecisionSink(Protocol):
    """Where a run's guardrail decisions are recorded besides its log: the audit
    (`stores.audit`)."""

    async def write(self, record: GuardrailRecord) -> None: ...


@dataclass(slots=True)
class RunGuard:
    """One run's guard, the subject it judges, and where its decisions go."""

    guard: Guard
    subject: Subject
    window_chars: int = 256
    tail_chars: int = 128
    sink: DecisionSink | None = None
    principal_id: str = ""
    trace_id: str = ""

    def watches(self, point: Point) -> bool:
        return self.guard.watches(point)

    def at(self, point: Point, tool: str = "") -> Subject:
        return replace(self.subject, point=point, tool=tool)

    def stream(self) -> GuardedStream | None:
        """A hold-back stream for one run of model output; None when nothing looks at it."""
        if not self.guard.watches(Point.OUTPUT):
            return None
        return GuardedStream(
            self.guard,
            self.at(Point.OUTPUT),
            window_chars=self.window_chars,
            tail_chars=self.tail_chars,
        )

    async def text(
        self,
        point: Point,
        text: str,
        emit: Emit,
        *,
        final: bool = True,
        tool: str = "",
        call_id: str = "",
    ) -> str:
        """`text` as it may go on (redacted when a check says so); its decision told;
        GuardrailBlockedError when a check blocks it."""
        if not self.guard.watches(point):
            return text
        verdict = await self.guard.inspect(point, text, self.at(point, tool), final=final)
        await self.told(verdict, point, emit, text, tool=tool, call_id=call_id)
        return verdict.text

    async def answer(self, text: str, emit: Emit) -> str:
        """A final answer as it may be kept and sent: checked whole by the checks that do
        not cost a model call and by those that look at the final answer only (the ones
        that cost one checked its windows as they streamed)."""
        checks = [
            check
            for check in self.guard.checks_at(Point.OUTPUT, final=True)
            if not check.needs_model or check.spec.scope is Scope.FINAL
        ]
        if not checks:
            return text
        found = await self.guard.judge(checks, text, self.at(Point.OUTPUT))
        decided = verdict(text, found)
        await self.told(decided, Point.OUTPUT, emit, text)
        return decided.text

    async def task_input(self, task: Task, emit: Emit) -> None:
        """A task's own input (its text and its context) checked before its first model
        call; redacted, the task keeps (and is sent) the redacted form."""
        if not self.guard.watches(Point.INPUT):
            return
        task.goal = await self.text(Point.INPUT, task.goal, emit)
        if task.context:
            task.context = dict(await self.arguments(Point.INPUT, task.context, emit))

    async def arguments(
        self,
        point: Point,
        arguments: Mapping[str, Any],
        emit: Emit,
        *,
        tool: str = "",
        call_id: str = "",
        tell: bool = True,
    ) -> Mapping[str, Any]:
        """A tool call's arguments (or a JSON result) as they may go on; as `text`. Not
        `tell`: a decision told already (on the same result's text) is not told again, but
        a block still raises."""
        if not self.guard.watches(point):
            return arguments
        verdict, kept = await self.guard.inspect_arguments(point, arguments, self.at(point, tool))
        if tell:
            await self.told(verdict, point, emit, verdict.text, tool=tool, call_id=call_id)
        else:
            blocked(verdict, point)
        return kept

    async def told(
        self,
        verdict: Verdict,
        point: Point,
        emit: Emit,
        text: str,
        *,
        tool: str = "",
        call_id: str = "",
    ) -> None:
        """Tell `verdict` (events, count, audit); GuardrailBlockedError when it blocks."""
        if verdict.action is None:
            return
        events = decisions(verdict, point, tool, call_id)
        for event in events:
            await emit(event)
        await self.recorded(events, text)
        blocked(verdict, point)

    async def recorded(self, events: list[GuardrailDecided], text: str) -> None:
        """Leave each decision's audit record (its events count it: `agent.metrics`)."""
        if self.sink is None:
            return
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        for event in events:
            await self.sink.write(self._record(event, digest))

    def _record(self, event: GuardrailDecided, digest: str) -> GuardrailRecord:
        subject = self.subject
        return GuardrailRecord(
            time=datetime.now(UTC),
            tenant=subject.tenant,
            principal_id=self.principal_id,
            check=event.check,
            rule=event.rule,
            point=event.point,
            action=event.action,
            reason=event.reason,
            text_digest=digest,
            task_id=subject.task_id,
            agent=subject.agent,
            tool_name=event.tool_name,
            call_id=event.call_id,
            trace_id=self.trace_id,
        )


def decisions(
    verdict: Verdict, point: Point, tool: str = "", call_id: str = ""
) -> list[GuardrailDecided]:
    """The events of a verdict: one per finding, with the action its check called for."""
    action = verdict.action
    if action is None:
        return []
    return [
        GuardrailDecided(
            finding.check,
            finding.rule,
            point.value,
            action.value,
            finding.reason,
            tool,
            call_id,
            len(finding.spans),
        )
        for finding in verdict.findings
    ]


def blocked(verdict: Verdict, point: Point) -> None:
    """GuardrailBlockedError naming the first blocking finding, when `verdict` blocks."""
    if verdict.action is not Action.BLOCK:
        return
    first = verdict.findings[0]
    raise GuardrailBlockedError(first.check, first.rule, point.value, first.reason)


async def _counted(decided: GuardrailDecided) -> None:
    metrics.count_guardrail(decided)


MAX_GUARDS = 256
"""Guards kept for reuse, one per agent version (building one compiles its patterns)."""


class Guards:
    """Makes each run's guard: the server's checks, then its agent's (`guardrails:`), built
    once per agent version and kept (the server's alone, for tasks of no agent and for
    CallTool, under the key "")."""

    def __init__(self, policy: GuardrailPolicy, sink: DecisionSink | None = None) -> None:
        self._policy = policy
        self._sink = sink
        self._built: dict[str, Guard] = {}

    def for_task(self, task: Task, call: CallContext) -> RunGuard | None:
        """The guard of a run of `task`; None when no check applies to it (nothing is
        checked, nothing held back)."""
        agent = task.agent
        declared = agent.guardrails if agent is not None else ()
        if not self._policy.checks and not declared:
            return None
        subject = Subject(
            Point.INPUT,
            task.tenant,
            agent=agent.reference if agent is not None else "",
            user=task.owner,
            task_id=task.task_id,
        )
        return RunGuard(
            self._guard(agent),
            subject,
            self._policy.window_chars,
            self._policy.tail_chars,
            self._sink,
            principal_id=call.principal.id,
            trace_id=call.trace_id,
        )

    def for_call(self, call: CallContext) -> CallsGuard | None:
        """The guard of a CallTool outside any task: the server's checks on the call's
        arguments and result (decisions counted and audited; there is no task log)."""
        if not self._policy.checks:
            return None
        principal = call.principal
        subject = Subject(Point.TOOL_ARGUMENTS, principal.tenant, user=principal.id)
        run_guard = RunGuard(
            self._guard(None),
            subject,
            sink=self._sink,
            principal_id=principal.id,
            trace_id=call.trace_id,
        )
        return CallsGuard(run_guard, _counted)

    def _guard(self, agent: AgentDefinition | None) -> Guard:
        """The kept guard of `agent` (None: the server's checks alone), built first."""
        key = agent.reference if agent is not None else ""
        guard = self._built.get(key)
        if guard is None:
            if len(self._built) >= MAX_GUARDS:
                self._built.clear()
            guard = self._built[key] = self._build(agent)
        return guard

    def _build(self, agent: AgentDefinition | None) -> Guard:
        specs = list(self._policy.checks)
        if agent is not None and agent.guardrails:
            declared, problems = parse(list(agent.guardrails))
            if problems:  # checked when the agent was made: a later kind may refuse it
                field, problem = problems[0]
                raise GuardrailConfigError(f"agent {agent.reference}: {field}: {problem}")
            specs += declared
        schema = agent.output_schema if agent is not None else None
        return Guard.build(specs, output_schema=schema, fail_closed=self._policy.fail_closed)


@dataclass(slots=True)
class CallsGuard:
    """A run's guard as the registry uses it for tool calls (`tools.guarding.CallGuard`):
    decisions told through `emit` (a task's events; for CallTool, its count alone)."""

    guard: RunGuard
    emit: Emit

    def watches_calls(self) -> bool:
        guard = self.guard
        return guard.watches(Point.TOOL_ARGUMENTS) or guard.watches(Point.TOOL_RESULT)

    async def tool_arguments(
        self, tool: str, call_id: str, arguments: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        point = Point.TOOL_ARGUMENTS
        return await self.guard.arguments(point, arguments, self.emit, tool=tool, call_id=call_id)

    async def tool_result(self, tool: str, call_id: str, text: str, data: Any) -> tuple[str, Any]:
        guard, point = self.guard, Point.TOOL_RESULT
        if not guard.watches(point):
            return text, data
        checked = await guard.text(point, text, self.emit, tool=tool, call_id=call_id)
        if data is None:
            return checked, data
        told = checked != text  # its data holds the same result: told once
        whole = isinstance(data, Mapping)  # else a list, a string, a number: one value
        kept = await guard.arguments(
            point,
            data if whole else {"result": data},
            self.emit,
            tool=tool,
            call_id=call_id,
            tell=not told,
        )
        return checked, dict(kept) if whole else kept["result"]
