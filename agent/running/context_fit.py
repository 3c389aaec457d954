"""Every model call of a task fits the model: fitted before it is sent, compacted once
more and retried once when the endpoint still says the context is too long.

`fitted_call` wraps one call of `TaskRun.model`: it fits the request
(`agent.llm.window.fitting`) into the window the catalog gives the model
(`agent.llm.window.catalog`), reports any cut as a `context_fitted` event, and sends it
with the reply limit recomputed. An endpoint that answers "context length exceeded"
anyway (its tokenizer counts more than agentd's estimate, or it serves the model with
a smaller window than the catalog says) gets one more, tighter fit and one retry; a
second such answer raises ContextTooLongError: a task fails with CONTEXT_TOO_LONG, the
Plan RPC answers INVALID_ARGUMENT with that reason (the status table).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from agent.limits import LimitReached
from agent.llm.base import Model, ModelError
from agent.llm.window.fitting import Fitted, fit_request
from agent.llm.window.tokens import ESTIMATE
from agent.llm.window.wide_estimate import WIDE_ESTIMATE
from agent.running.artifacts import RunArtifacts, notes
from agent.running.transcript import Transcript
from core.errors import ContextTooLongError
from records import events as ev
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.tasks import StopReason

if TYPE_CHECKING:
    from agent.limits import EngineConfig
    from agent.llm.window.tokens import TokenCounter

Send = Callable[[Sequence[Message], ModelSettings, int], Awaitable[ModelResponse]]
"""Sends the fitted messages with the settings; the int is agentd's count of the prompt."""


class FittingRun(Protocol):
    """What fitting a call needs of its run (`agent.running.run.TaskRun` calls this module)."""

    config: EngineConfig
    counter: TokenCounter
    transcript: Transcript
    artifacts: RunArtifacts | None


async def _shown(run: FittingRun, model: Model, messages: Sequence[Message]) -> Sequence[Message]:
    """The fitted messages as `model` is sent them: its images inline when it sees images
    (read through the run's artifacts, `agent.running.artifacts.RunArtifacts`), else notes
    naming them. Only here: checkpoints and history keep the references, a trace names
    them."""
    if not any(m.parts for m in messages):
        return messages
    if run.artifacts is None:
        return notes(messages)
    return await run.artifacts.shown(messages, model.sees_images)


def _keep_head(run: FittingRun, messages: Sequence[Message]) -> int:
    """The leading messages kept whole: the system message, the conversation's turns
    (budgeted on their own) and the goal."""
    history = run.transcript.history
    if history is not None and history.carried_by(messages):
        return 1 + len(history.sent) + 1
    return 0


def fit(
    run: FittingRun,
    model: Model,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    settings: ModelSettings,
    squeeze: float = 1.0,
) -> Fitted:
    return fit_request(
        messages,
        tools,
        run.config.catalog.limits(model.name),
        WIDE_ESTIMATE if run.counter.name == ESTIMATE.name else run.counter,
        max_tokens=settings.max_tokens or model.max_tokens,
        policy=run.config.fitting,
        squeeze=squeeze,
        keep_head=_keep_head(run, messages),
    )


async def fitted_call(
    run: FittingRun,
    model: Model,
    role: str,
    step_id: str,
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition],
    settings: ModelSettings | None,
    send: Send,
    budget: int | None = None,
) -> tuple[ModelResponse, Sequence[Message]]:
    """The reply to `messages` fitted to `model`, and the messages as sent. With `budget`
    (the tokens the task has left), the reply limit is capped to what the fitted prompt
    leaves of it, and a prompt that alone takes it all is never sent (LimitReached)."""
    settings = settings or ModelSettings()
    fitted = fit(run, model, messages, tools, settings)
    await _report(run, model, role, step_id, fitted, retry=False)
    try:
        sent = _limited(settings, fitted, budget)
        shown = await _shown(run, model, fitted.messages)
        return await send(shown, sent, fitted.prompt_tokens), fitted.messages
    except ModelError as error:
        if not error.context_too_long:
            raise
        first = error
    squeeze = run.config.fitting.retry_squeeze
    fitted = fit(run, model, messages, tools, settings, squeeze)
    await _report(run, model, role, step_id, fitted, retry=True)
    try:
        sent = _limited(settings, fitted, budget)
        shown = await _shown(run, model, fitted.messages)
        return await send(shown, sent, fitted.prompt_tokens), fitted.messages
    except ModelError as error:
        if error.context_too_long:
            raise ContextTooLongError(model.name, error.message) from first
        raise


def _limited(settings: ModelSettings, fitted: Fitted, budget: int | None) -> ModelSettings:
    """The settings to send: the fitted reply limit, capped by what `budget` leaves after
    the prompt (a call never spends past the task's budget by more than the endpoint's
    count of the prompt differs from agentd's)."""
    limit = fitted.max_tokens
    if budget is not None:
        room = budget - fitted.prompt_tokens
        if room <= 0:
            raise LimitReached(
                StopReason.TOKEN_BUDGET,
                f"the prompt alone ({fitted.prompt_tokens} tokens) takes all that is left of "
                f"the token budget ({budget} tokens)",
            )
        limit = min(limit, room)
    return replace(settings, max_tokens=limit)


async def _report(
    run: FittingRun, model: Model, role: str, step_id: str, fitted: Fitted, *, retry: bool
) -> None:
    if not fitted.saved_tokens and not retry:
        return
    await run.transcript.emit(
        ev.ContextFitted(
            step_id,
            role,
            model.name,
            run.config.catalog.limits(model.name).context_window,
            fitted.prompt_tokens,
            fitted.max_tokens,
            fitted.saved_tokens,
            fitted.clipped,
            fitted.dropped,
            retry,
            fitted.dropped_images,
        )
    )
