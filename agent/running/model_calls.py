"""A run's model calls: fitted to the model's window (`agent.running.context_fit`), capped
to the token budget left, metered (`agent.spending`: reserved on the budgets the task draws
on, priced, kept in the usage ledger), streamed as events, traced, and counted against the
budget."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from agent.limits import EngineConfig, LimitReached, step_clock_stopped
from agent.llm import sanitize
from agent.llm.base import Model
from agent.llm.roles import RoleName
from agent.llm.window import tokens
from agent.recording.capture import ModelAnswer
from agent.running import context_fit
from agent.running.artifacts import RunArtifacts
from agent.running.deltas import streamed
from agent.running.state import RunBounds, RunState
from agent.running.transcript import Transcript
from agent.spending.budgets import Hold
from agent.spending.calls import Metering
from core import tracing
from core.metrics import LLM_CALLS
from records import events as ev
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.tasks import StopReason, Task

if TYPE_CHECKING:
    from agent.llm.roles import ModelRoles
    from agent.llm.window.tokens import TokenCounter
    from core.identity import CallContext


class CallingRun(Protocol):
    """What a model call needs of its run (`agent.running.run.TaskRun`, which calls this
    module)."""

    task: Task
    call: CallContext
    models: ModelRoles
    counter: TokenCounter
    config: EngineConfig
    bounds: RunBounds
    state: RunState
    transcript: Transcript
    meter: Metering | None
    artifacts: RunArtifacts | None
    """Read by fitting (`context_fit`): the images its messages refer to."""


async def call(
    run: CallingRun,
    role: RoleName,
    step_id: str,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    settings: ModelSettings | None,
    stream: bool,
) -> ModelResponse:
    """One model call of `run`: LimitReached (TOKEN_BUDGET, SPEND_LIMIT) once the task's
    token budget or spend limit is spent, or when its reply took the task past one (the
    reply kept as a note)."""
    if run.task.usage.total_tokens >= run.bounds.token_budget:
        raise LimitReached(
            StopReason.TOKEN_BUDGET,
            f"the token budget of {run.bounds.token_budget} tokens is used up",
        )
    if (limit := _spent_limit(run)) is not None:
        raise limit
    model = run.models.for_role(role)
    estimated: list[bool] = []  # whether the answered call's usage is agentd's estimate

    async def send(fitted: Sequence[Message], sent: ModelSettings, prompt: int) -> ModelResponse:
        call = _Call(run, model, role, step_id, fitted, tools, stream)
        return await call.metered(sent, prompt, estimated)

    left = run.bounds.token_budget - run.task.usage.total_tokens
    response, messages = await context_fit.fitted_call(
        run, model, role, step_id, messages, tools, settings, send, left
    )
    response = await _counted(run, model, role, step_id, messages, response, estimated[-1])
    if run.task.usage.total_tokens > run.bounds.token_budget:
        run.transcript.notes.append(
            f"[{role}, last reply before the budget ran out] {response.text}"
        )
        raise LimitReached(
            StopReason.TOKEN_BUDGET,
            f"the token budget of {run.bounds.token_budget} tokens is used up "
            f"({run.task.usage.total_tokens} spent)",
        )
    if (spent := _spent_limit(run)) is not None:
        run.transcript.notes.append(
            f"[{role}, last reply before the spend limit was reached] {response.text}"
        )
        raise spent
    return response


def _spent_limit(run: CallingRun) -> LimitReached | None:
    """SPEND_LIMIT once the task has spent its spend limit (its children's spend
    included), else None. A model without a price costs nothing: it never gets there."""
    limit, spent = run.task.spend_limit, run.task.usage.cost_micros
    if not limit or spent < limit:
        return None
    currency = run.meter.prices.currency if run.meter is not None else ""
    return LimitReached(
        StopReason.SPEND_LIMIT,
        f"the spend limit of {limit} micro-units of {currency or 'the server currency'} "
        f"is reached ({spent} spent)",
    )


@dataclass(frozen=True, slots=True)
class _Call:
    """One send of a model call."""

    run: CallingRun
    model: Model
    role: RoleName
    step_id: str
    messages: Sequence[Message]
    tools: Sequence[ToolDefinition]
    stream: bool

    async def metered(
        self, settings: ModelSettings, prompt: int, estimated: list[bool]
    ) -> ModelResponse:
        """The reply, its usage counted (estimated when the endpoint counted nothing: said
        in `estimated`) and priced. Metered, the call is reserved on its task's budgets
        first (`prompt`: agentd's count of it) and its settlement queued as soon as it
        ends, before anything else is awaited: a cancel never leaves its reservation held."""
        run, model, role = self.run, self.model, self.role
        meter = run.meter
        hold: Hold | None = None
        if meter is not None:
            before = await meter.before(run, model, prompt, settings)
            settings, hold = before.settings, before.hold
        recording = run.state.recording
        entry = recording.entry_id() if recording is not None else ""
        started = time.monotonic()
        try:
            response = await self.in_turn(settings, entry)
        except BaseException as error:
            seconds = time.monotonic() - started
            if recording is not None:
                failed = ModelAnswer(None, seconds, f"{type(error).__name__}: {error}")
                self.traced(entry, settings, failed)
            if meter is not None:
                await asyncio.shield(meter.failed(run, model, role, error, seconds, hold))
            raise
        seconds = time.monotonic() - started
        counted = response.usage.total_tokens == 0  # the endpoint counted nothing
        if counted:
            usage = tokens.estimate(self.messages, self.tools, response, run.counter)
            response = replace(response, usage=usage)
        estimated.append(counted)
        if meter is not None:
            usage = meter.priced(response, model, response.usage)
            if usage is not response.usage:
                response = replace(response, usage=usage)
            meter.answered(run, model, role, response, response.usage, seconds, hold, counted)
        if recording is not None:
            self.traced(entry, settings, ModelAnswer(response, seconds))
        return response

    def traced(self, entry: str, settings: ModelSettings, answered: ModelAnswer) -> None:
        """Keep the call in the run's trace (queued: nothing waits for its write)."""
        recording = self.run.state.recording
        if recording is not None:
            sent = (self.messages, self.tools, settings)
            recording.model_call(entry, self.step_id, self.role, self.model.name, sent, answered)

    async def in_turn(self, settings: ModelSettings, entry: str = "") -> ModelResponse:
        """The reply, once the process has a place for one more call in flight (a burst
        waits its turn for the model; the wait is not the step's time). A call waits for
        its budgets' room before, never holding a place meanwhile."""
        turn = self.run.models.calls
        if turn is None:
            return await self.sent(settings, entry)
        async with step_clock_stopped():
            await turn.acquire()
        try:
            return await self.sent(settings, entry)
        finally:
            turn.release()

    async def sent(self, settings: ModelSettings, entry: str) -> ModelResponse:
        return await _sent(
            self.run,
            self.model,
            self.role,
            (self.step_id, entry),
            self.messages,
            self.tools,
            settings,
            self.stream,
        )


async def _counted(
    run: CallingRun,
    model: Model,
    role: RoleName,
    step_id: str,
    messages: Sequence[Message],
    response: ModelResponse,
    estimated: bool,
) -> ModelResponse:
    """The reply's usage (counted and priced as it was sent: `_Call.metered`) added to the
    task's and reported."""
    if run.transcript.history is not None and run.transcript.history.carried_by(messages):
        saved = replace(response.usage, saved_tokens=run.transcript.history.saved)
        response = replace(response, usage=saved)
    run.task.usage = run.task.usage + response.usage
    await run.transcript.emit(
        ev.UsageReported(
            step_id,
            role,
            response.usage,
            run.task.usage,
            response.model or model.name,
            estimated,
            response.provider,
        )
    )
    return response


async def _sent(
    run: CallingRun,
    model: Model,
    role: RoleName,
    step: tuple[str, str],
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    settings: ModelSettings | None,
    stream: bool,
) -> ModelResponse:
    """One model call, streamed as events, traced, counted; the reply sanitised. `step`:
    its step id and the id of its entry in the task's durable trace (empty: none kept),
    which its span names."""
    response: ModelResponse | None = None
    step_id, entry = step
    attributes = {"agentd.task_id": run.task.task_id, **_tree(run.task)}
    if entry:  # the span links to the call's record in the task's trace (GetTaskTrace)
        attributes["agentd.trace.entry_id"] = entry
    with tracing.span(f"llm {role}", run.call.trace_id, attributes) as span:
        try:
            if stream:
                response = await streamed(run, model.stream(messages, tools, settings), step_id)
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


def _tree(task: Task) -> dict[str, str]:
    """A child task's place in its tree, for its spans."""
    if not task.parent_task_id:
        return {}
    return {"agentd.parent_task_id": task.parent_task_id, "agentd.root_task_id": task.root}
