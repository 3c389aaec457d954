"""One running task: the context every mode works through.

`TaskRun` owns the task's mutable state while it runs and is the only way a
mode talks to the outside: model calls (streamed as events, counted against
the token budget), tool calls (through the registry, with the caller's
permissions, concurrently but bounded), and events.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import structlog

from agent import events as ev
from agent import metrics, serialization
from agent.event_writer import EventWriter
from agent.limits import EngineConfig, LimitReached, step_clock_stopped
from agent.llm import sanitize
from agent.llm.base import (
    Done,
    Message,
    Model,
    ModelError,
    ModelResponse,
    ModelSettings,
    ReasoningChunk,
    TextChunk,
    ToolDefinition,
)
from agent.llm.roles import ModelRoles, RoleName
from agent.plan import Plan
from agent.resume import JournalEntry, RunCheckpoint
from agent.tasks import StopReason, Task, TaskStatus
from core import tracing
from core.errors import AgentdError
from core.identity import CallContext
from core.metrics import LLM_CALLS
from core.secrets import redact
from core.text import clean_json, clean_text
from stores.approvals.base import ApprovalBox
from stores.checkpoints.base import CheckpointStore
from stores.tasks.base import TaskStore
from tools.approvals import Verdict
from tools.model import ToolSpec
from tools.outcomes import ToolCallError, ToolErrorKind
from tools.registry import ToolRegistry, new_call_id

UNKNOWN_OUTCOME = (
    "outcome unknown: the server process running this call stopped before the call reported "
    "back, and {tool} may not be repeated safely, so it was not called again. Check whether "
    "it took effect before relying on it or calling it again."
)

log = structlog.get_logger(__name__)

_DECISIONS: dict[str, Literal["approve", "reject", "edit"]] = {
    "approved": "approve",
    "rejected": "reject",
    "edited": "edit",
}


@dataclass(frozen=True, slots=True)
class Observation:
    """What a tool call came to, as the model will see it."""

    call_id: str
    tool_name: str
    ok: bool
    text: str
    data: Any = None


@dataclass
class TaskRun:
    task: Task
    call: CallContext
    models: ModelRoles
    registry: ToolRegistry
    store: TaskStore
    config: EngineConfig
    token_budget: int
    tool_specs: dict[str, ToolSpec]
    """The tools this task may use, by name."""
    notes: list[str] = field(default_factory=list)
    """Results gathered so far, for a partial answer if a limit stops the task."""
    persist: bool = True
    """False for work that is not a stored task (the Plan RPC): no events, no saves."""
    checkpoints: CheckpointStore | None = None
    """Where progress is checkpointed; None when no other process could resume the task."""
    deadline_at: float | None = None
    """Wall-clock time (epoch seconds) of the caller's deadline, if it set one."""
    resumed: RunCheckpoint | None = None
    """The checkpoint this run resumes from, if it does."""
    approvals: ApprovalBox | None = None
    """Where a human's verdicts on calls needing approval arrive; None refuses such calls."""
    _tool_slots: asyncio.Semaphore = field(init=False)
    _journal: dict[str, JournalEntry] = field(init=False)
    _mode_state: dict[str, Any] = field(init=False)
    _checkpoint_lock: asyncio.Lock = field(init=False)
    _waiting: int = field(init=False, default=0)
    _events: EventWriter = field(init=False)

    def __post_init__(self) -> None:
        self._events = EventWriter(
            self._append,
            flush_seconds=self.config.delta_flush_seconds,
            max_chars=self.config.delta_max_chars,
        )
        self._tool_slots = asyncio.Semaphore(self.config.max_concurrent_tool_calls)
        self._checkpoint_lock = asyncio.Lock()
        resumed = self.resumed
        self._journal = dict(resumed.journal) if resumed else {}
        self._mode_state = dict(resumed.mode_state) if resumed else {}
        if resumed is not None:
            self.notes = list(resumed.notes)

    # -- checkpoints -----------------------------------------------------------

    @property
    def durable(self) -> bool:
        """Whether progress is checkpointed for another process to resume."""
        return self.persist and self.checkpoints is not None

    def resume_state(self) -> dict[str, Any] | None:
        """The mode's state at the checkpoint this run resumes from (None for a new run)."""
        return dict(self.resumed.mode_state) if self.resumed is not None else None

    async def checkpoint(self, mode_state: dict[str, Any] | None = None) -> None:
        """Record progress: the mode's state (copies, never live objects) and the journal."""
        if mode_state is not None:
            self._mode_state = mode_state
        if self.checkpoints is None or not self.persist:
            return
        async with self._checkpoint_lock:
            state = RunCheckpoint(
                principal=self.call.principal,
                token_budget=self.token_budget,
                deadline_at=self.deadline_at,
                usage=self.task.usage,
                completed_steps=self.task.current_step,
                notes=tuple(self.notes),
                journal=dict(self._journal),
                mode_state=self._mode_state,
            )
            await self.checkpoints.save(
                self.task.tenant, self.task.task_id, serialization.dumps(state)
            )

    def may_repeat(self, name: str) -> bool:
        """Whether a call of `name` may run again after a crash (or is not journalled)."""
        spec = self.tool_specs.get(name)
        return spec is None or spec.idempotent

    # -- events --------------------------------------------------------------

    async def emit(self, payload: ev.EventPayload) -> None:
        """Write an event to the task's log (text deltas may be coalesced: `EventWriter`)."""
        if self.persist:
            await self._events.emit(payload)

    async def _append(self, payload: ev.EventPayload) -> None:
        event = await self.store.append_event(self.task.task_id, self.call.trace_id, payload)
        self.task.last_sequence = max(self.task.last_sequence, event.sequence)
        metrics.observe_event(self.task, payload)

    async def save(self) -> None:
        if self.persist:
            await self.store.update(self.task)

    async def set_plan(self, plan: Plan, reason: str = "") -> None:
        first = self.task.plan is None
        self.task.plan = plan
        self.task.total_steps = len(plan.steps) + (0 if first else self.task.current_step)
        await self.save()
        await self.emit(ev.PlanCreated(plan) if first else ev.PlanRevised(plan, reason))

    async def begin_iteration(self, iteration: int, last: bool) -> tuple[str, float]:
        """Announce a ReAct iteration; returns its step id and start time."""
        step_id = f"iteration-{iteration}"
        description = "final answer" if last else "reason and act"
        await self.emit(ev.StepStarted(step_id, description, iteration))
        return step_id, time.perf_counter()

    async def record_progress(self, current: int, total: int) -> None:
        self.task.current_step = current
        self.task.total_steps = total
        await self.save()

    async def iteration_timed_out(
        self, step_id: str, iteration: int, started: float
    ) -> LimitReached:
        """Report a timed-out iteration; returns the limit signal to raise."""
        await self.emit(ev.StepFinished(step_id, False, "timed out", time.perf_counter() - started))
        return LimitReached(
            StopReason.STEP_TIMEOUT,
            f"iteration {iteration} took longer than {self.config.step_timeout_seconds:g} s",
        )

    # -- models ----------------------------------------------------------------

    def tool_definitions(self, names: Sequence[str] | None = None) -> list[ToolDefinition]:
        chosen = self.tool_specs if names is None else {n: self.tool_specs[n] for n in names}
        return [ToolDefinition(s.name, s.description, s.parameters) for s in chosen.values()]

    async def model(
        self,
        role: RoleName,
        step_id: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
        stream: bool = True,
    ) -> ModelResponse:
        """One model call, its deltas streamed as events, its tokens counted."""
        if self.task.usage.total_tokens >= self.token_budget:
            raise LimitReached(
                StopReason.TOKEN_BUDGET,
                f"the token budget of {self.token_budget} tokens is used up",
            )
        model = self.models.for_role(role)
        turn = self.models.calls
        if turn is not None:
            # A burst waits its turn for the model; the wait is not the step's time.
            async with step_clock_stopped():
                await turn.acquire()
        try:
            response = await self._call(model, role, step_id, messages, tools, settings, stream)
        finally:
            if turn is not None:
                turn.release()
        self.task.usage = self.task.usage + response.usage
        await self.emit(
            ev.UsageReported(
                step_id, role, response.usage, self.task.usage, response.model or model.name
            )
        )
        if self.task.usage.total_tokens > self.token_budget:
            self.notes.append(f"[{role}, last reply before the budget ran out] {response.text}")
            raise LimitReached(
                StopReason.TOKEN_BUDGET,
                f"the token budget of {self.token_budget} tokens is used up "
                f"({self.task.usage.total_tokens} spent)",
            )
        return response

    async def _call(
        self,
        model: Model,
        role: RoleName,
        step_id: str,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        settings: ModelSettings | None,
        stream: bool,
    ) -> ModelResponse:
        """One model call, streamed as events, traced, counted; the reply sanitised."""
        response: ModelResponse | None = None
        with tracing.span(
            f"llm {role}", self.call.trace_id, {"agentd.task_id": self.task.task_id}
        ) as span:
            try:
                if stream:
                    streamed = [0, 0]  # text, reasoning characters so far
                    async for item in model.stream(messages, tools, settings):
                        if isinstance(item, TextChunk | ReasoningChunk):
                            await self._emit_chunk(step_id, item, streamed)
                        elif isinstance(item, Done):
                            response = item.response
                    if response is None:
                        raise ModelError("the model stream ended without a response")
                else:
                    response = await model.complete(messages, tools, settings)
            except Exception as error:
                LLM_CALLS.labels(role, "error").inc()
                tracing.fail(span, type(error).__name__)
                raise
            LLM_CALLS.labels(role, "ok").inc()
            response = sanitize.response(response)
            span.set_attribute("gen_ai.usage.input_tokens", response.usage.prompt_tokens)
            span.set_attribute("gen_ai.usage.output_tokens", response.usage.completion_tokens)
        return response

    async def _emit_chunk(
        self, step_id: str, item: TextChunk | ReasoningChunk, streamed: list[int]
    ) -> None:
        """A streamed piece as a delta, up to the reply's size cap (the rest is not sent)."""
        kind = 0 if isinstance(item, TextChunk) else 1
        room = sanitize.MAX_REPLY_CHARS - streamed[kind]
        streamed[kind] += len(item.text)
        if room > 0:
            piece = sanitize.text(item.text[:room])
            await self.emit(
                ev.TextDelta(step_id, piece) if kind == 0 else ev.ReasoningDelta(step_id, piece)
            )

    # -- tools -----------------------------------------------------------------

    async def call_tool(
        self,
        step_id: str,
        name: str,
        arguments: dict[str, Any] | None,
        *,
        bad_arguments: str = "",
        key: str = "",
    ) -> Observation:
        """Run one tool call as an observation; refusals and failures become text, never raise.

        `key` names the call for the journal: the same key on a resumed run is
        the same call. A call of a tool that may not be repeated is journalled
        before it starts; if the journal already has it, it is not run again.
        """
        journalled = bool(key) and self.durable and not bad_arguments and not self.may_repeat(name)
        if journalled:
            entry = self._journal.get(key)
            if entry is not None:
                return await self._replayed(step_id, name, arguments, entry, key)
            call_id = new_call_id()
            self._journal[key] = JournalEntry(call_id, name, finished=False)
            await self.checkpoint()
        else:
            call_id = new_call_id()
        await self.emit(ev.ToolCallStarted(call_id, step_id, name, redact(arguments or {})))
        started = time.perf_counter()
        error: ToolCallError | None = None
        data: Any = None
        rendered = ""
        if bad_arguments:
            error = ToolCallError(ToolErrorKind.FAILED, f"not called: {bad_arguments}")
        elif name not in self.tool_specs:
            # Never run, whatever the model (or a tool's output) asked: recorded and refused.
            await self.registry.refuse(name, arguments or {}, self._tool_context)
            error = ToolCallError(
                ToolErrorKind.FAILED,
                f"not called: tool {name!r} is not available to this task; "
                f"available: {', '.join(sorted(self.tool_specs)) or 'none'}",
            )
        else:
            gate = self._approve if self.persist and self.approvals is not None else None
            async with self._tool_slots:
                try:
                    result = await self.registry.call(
                        name, arguments or {}, self._tool_context, approval=gate, call_id=call_id
                    )
                except AgentdError as refusal:
                    error = ToolCallError(
                        ToolErrorKind.FAILED, f"refused ({refusal.reason}): {refusal.message}"
                    )
                else:  # a tool's output is untrusted too: made safe to encode and store
                    data, error = clean_json(result.data), result.error
                    rendered = clean_text(result.text)
        duration = time.perf_counter() - started
        text = (
            error.message if error is not None else _clip(rendered or json.dumps(data, default=str))
        )
        await self.emit(ev.ToolCallFinished(call_id, name, data, error, duration, text))
        observation = Observation(call_id, name, error is None, text, data)
        if journalled:
            self._journal[key] = JournalEntry(call_id, name, True, observation.ok, text, data)
            await self.checkpoint()
        self._note(observation, arguments)
        return observation

    @property
    def _tool_context(self) -> CallContext:
        """A tool call of the task: what is left of the task's time bounds it."""
        if not self.persist:
            return self.call
        left = None if self.deadline_at is None else max(0.0, self.deadline_at - time.time())
        return replace(self.call, task_id=self.task.task_id, deadline_seconds=left)

    async def _approve(
        self, call_id: str, tool: ToolSpec, arguments: Mapping[str, Any], reason: str
    ) -> Verdict:
        """Pause for a human: INPUT_REQUIRED and an approval_requested event, then the verdict.

        The step's clock stops while waiting; the task's deadline keeps running.
        """
        assert self.approvals is not None
        task_id = self.task.task_id
        ttl = max(60.0, (self.deadline_at or time.time() + 3600.0) - time.time())
        await self.approvals.open(self.task.tenant, task_id, call_id, ttl)
        self._waiting += 1
        try:
            if self._waiting == 1:
                await self._set_status(
                    TaskStatus.INPUT_REQUIRED, f"waiting for approval of {tool.name}"
                )
            await self.emit(ev.ApprovalRequested(call_id, tool.name, dict(arguments), reason))
            async with step_clock_stopped():
                verdict = await self.approvals.wait(task_id, call_id)
        except BaseException:
            self._waiting -= 1
            await asyncio.shield(self.approvals.close(task_id, call_id))
            raise
        self._waiting -= 1
        await self.approvals.close(task_id, call_id)
        decision = _DECISIONS[verdict.label]
        edited = redact(dict(verdict.arguments)) if verdict.arguments is not None else None
        await self.emit(
            ev.ApprovalDecided(call_id, decision, verdict.decided_by, verdict.comment, edited)
        )
        if self._waiting == 0 and self.task.status is TaskStatus.INPUT_REQUIRED:
            await self._set_status(TaskStatus.RUNNING, f"{verdict.label} by {verdict.decided_by}")
        return verdict

    async def _set_status(self, status: TaskStatus, detail: str) -> None:
        previous = self.task.status
        self.task.status = status
        await self.save()
        await self.emit(ev.StatusChanged(status, previous, detail))

    async def _replayed(
        self,
        step_id: str,
        name: str,
        arguments: dict[str, Any] | None,
        entry: JournalEntry,
        key: str,
    ) -> Observation:
        """A journalled call met again on a resumed run: its result, or an unknown outcome."""
        if entry.finished:
            observation = Observation(entry.call_id, name, entry.ok, entry.text, entry.data)
        else:
            text = UNKNOWN_OUTCOME.format(tool=name)
            error = ToolCallError(ToolErrorKind.OUTCOME_UNKNOWN, text)
            await self.emit(ev.ToolCallFinished(entry.call_id, name, None, error, 0.0, text))
            observation = Observation(entry.call_id, name, False, text)
            self._journal[key] = JournalEntry(entry.call_id, name, True, False, text)
            await self.checkpoint()
            log.warning(
                "tool call outcome unknown after takeover; not repeated",
                task_id=self.task.task_id,
                tool=name,
                call_id=entry.call_id,
                step_id=step_id,
            )
        self._note(observation, arguments)
        return observation

    def _note(self, observation: Observation, arguments: dict[str, Any] | None) -> None:
        self.notes.append(
            f"{observation.tool_name}({_short(arguments)}) -> "
            f"{'' if observation.ok else 'error: '}{_short(observation.text, 500)}"
        )

    async def call_tools(
        self, step_id: str, calls: Sequence[tuple[str, dict[str, Any] | None, str]]
    ) -> list[Observation]:
        """Several calls at once (bounded by the tool-slot semaphore), results in call order.

        Journal keys are the step id and the call's position, stable across a resume.
        """
        return list(
            await asyncio.gather(
                *(
                    self.call_tool(step_id, n, a, bad_arguments=b, key=f"{step_id}/{i}")
                    for i, (n, a, b) in enumerate(calls)
                )
            )
        )


def _short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _clip(text: str, limit: int = 20_000) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters in all)"
