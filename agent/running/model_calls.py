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
from agent.running import context_fit
from agent.running.deltas import streamed
from agent.running.state import RunBounds
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
    transcript: Transcript
    meter: Metering | None


async def call(
    run: CallingRun,
    role: RoleName,
    step_id: str,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    settings: ModelSettings | None,
    stream: bool,
) -> ModelResponse:
    """One model call of `run`: LimitReached (TOKEN_BUDGET) once the budget is spent, or
    when its reply took the task past it (the reply kept as a note)."""
    if run.task.usage.total_tokens >= run.bounds.token_budget:
        raise LimitReached(
            StopReason.TOKEN_BUDGET,
            f"the token budget of {run.bounds.token_budget} tokens is used up",
        )
    model = run.models.for_role(role)
    turn = run.models.calls
    if turn is not None:
        # A burst waits its turn for the model; the wait is not the step's time.
        async with step_clock_stopped():
            await turn.acquire()
    metered: list[tuple[Hold | None, float]] = []  # the answered call's hold and time
    try:

        async def send(
            fitted: Sequence[Message], sent: ModelSettings, prompt: int
        ) -> ModelResponse:
            call = _Call(run, model, role, step_id, fitted, tools, stream)
            return await call.metered(sent, prompt, metered)

        left = run.bounds.token_budget - run.task.usage.total_tokens
        response, messages = await context_fit.fitted_call(
            run, model, role, step_id, messages, tools, settings, send, left
        )
    finally:
        if turn is not None:
            turn.release()
    response, estimated = await _counted(run, model, role, step_id, messages, tools, response)
    meter = run.meter
    if meter is not None:
        hold, seconds = metered[-1] if metered else (None, 0.0)
        await meter.answered(run, model, role, response, response.usage, seconds, hold, estimated)
    if run.task.usage.total_tokens > run.bounds.token_budget:
        run.transcript.notes.append(
            f"[{role}, last reply before the budget ran out] {response.text}"
        )
        raise LimitReached(
            StopReason.TOKEN_BUDGET,
            f"the token budget of {run.bounds.token_budget} tokens is used up "
            f"({run.task.usage.total_tokens} spent)",
        )
    return response


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
        self, settings: ModelSettings, prompt: int, held: list[tuple[Hold | None, float]]
    ) -> ModelResponse:
        """The reply, the call reserved on its task's budgets first (`prompt`: agentd's
        count of it) and its reservation released if it fails; its hold and time added to
        `held` for its settlement once its usage is counted."""
        run, model, role = self.run, self.model, self.role
        meter = run.meter
        if meter is None:
            return await self.sent(settings)
        before = await meter.before(run, model, prompt, settings)
        started = time.monotonic()
        try:
            response = await self.sent(before.settings)
        except BaseException as error:
            seconds = time.monotonic() - started
            await asyncio.shield(meter.failed(run, model, role, error, seconds, before.hold))
            raise
        held.append((before.hold, time.monotonic() - started))
        return response

    async def sent(self, settings: ModelSettings) -> ModelResponse:
        return await _sent(
            self.run,
            self.model,
            self.role,
            self.step_id,
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
    tools: Sequence[ToolDefinition],
    response: ModelResponse,
) -> tuple[ModelResponse, bool]:
    """The reply's usage (estimated when the endpoint counted nothing; priced) added to the
    task's and reported; and whether it was estimated."""
    estimated = response.usage.total_tokens == 0  # the endpoint counted nothing
    if estimated:
        usage = tokens.estimate(messages, tools, response, run.counter)
        response = replace(response, usage=usage)
    if run.meter is not None:
        response = replace(response, usage=run.meter.priced(response, model, response.usage))
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
    return response, estimated


async def _sent(
    run: CallingRun,
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
        f"llm {role}",
        run.call.trace_id,
        {"agentd.task_id": run.task.task_id, **_tree(run.task)},
    ) as span:
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
