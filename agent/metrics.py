"""What a task's events, its model calls, its providers' fallbacks and breakers, and its
guardrails' decisions add to the Prometheus series (core.metrics).

Every label stays bounded whatever tenants send or define: never a user or tenant; an
agent by its id only when it is defined in AGENTD_AGENTS_DIR or among the first
AGENTD_METRICS_AGENT_LABELS others seen (`AGENT_LABELS`), a model by its name among the
first `MAX_MODEL_LABELS` seen; the rest as "other".
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.metrics import (
    BREAKER_OPENINGS,
    GUARDRAIL_DECISIONS,
    LLM_TOKENS,
    MODEL_CALL_DURATION,
    MODEL_CALLS,
    MODEL_COST,
    MODEL_TOKENS,
    PROVIDER_FALLBACKS,
    REFLECTIONS,
    TASK_DURATION,
    TASK_ITERATIONS,
    TASKS_FINISHED,
    TASKS_STARTED,
    TASKS_STOPPED,
    labelled,
)
from records import events as ev
from records.guardrails import Action, Point
from records.tasks import StopReason, Task, TaskStatus, utcnow
from records.usage.ledger import ModelCall

MAX_CHECK_LABELS = 200
"""Distinct check names counted under their own name; later ones count as "other". Check
names come from agent files as well as the server's, so without a bound a tenant could
grow the series without end."""
AGENT_LABELS_DEFAULT = 20
"""Agent ids not defined in files counted under their own id (AGENTD_METRICS_AGENT_LABELS)."""
MAX_MODEL_LABELS = 100
"""Distinct model names counted under their own name: an agent a tenant defines may name
any model where AGENTD_AGENT_MODELS does not narrow them (a failed call counts too)."""
MAX_TRACKED_TASKS = 10_000
"""Tasks whose model calls are being counted for `agentd_task_iterations`; past this the
longest tracked is forgotten (a task parked here that ended elsewhere never ends here)."""
OTHER = "other"
DEFAULT = "default"
"""The label of the default agent and of the server's own endpoint (provider "")."""
_POINTS = frozenset(p.value for p in Point)
_ACTIONS = frozenset(a.value for a in Action)
_checks: set[str] = set()


def _none(_: str) -> bool:
    return False


_generations = itertools.count()


class BoundedLabels:
    """A label's values, bounded: "" is `DEFAULT`; a value `named` says to keep is itself;
    so are the first `limit` other distinct values seen; every later one is `OTHER`.
    Called on the event loop's thread (not locked)."""

    def __init__(self, limit: int, named: Callable[[str], bool] = _none) -> None:
        self.limit = limit
        self._named = named
        self._seen: set[str] = set()
        self.generation = next(_generations)
        """New with each bound and each `configure` (unique among all): what was labelled
        under another may be labelled otherwise now."""

    def configure(self, limit: int, named: Callable[[str], bool] = _none) -> None:
        """Set at start-up: the bound, and which values are always themselves (for agents:
        whether an id is an agent of AGENTD_AGENTS_DIR, asked each time, so files read
        again count). Forgets the values seen so far."""
        self.limit = limit
        self._named = named
        self._seen = set()
        self.generation = next(_generations)

    def __call__(self, value: str) -> str:
        if not value:
            return DEFAULT
        if value in self._seen or self._named(value):
            return value
        if len(self._seen) < self.limit:
            self._seen.add(value)
            return value
        return OTHER


AGENT_LABELS = BoundedLabels(AGENT_LABELS_DEFAULT)
"""The `agent` label of every series (`server.wiring.agents` configures it at start)."""
MODEL_LABELS = BoundedLabels(MAX_MODEL_LABELS)
"""The `model` label of every series."""

_calls: dict[str, int] = {}
"""Model calls answered so far, by task id, of the tasks running (or parked) here."""


@dataclass(frozen=True, slots=True)
class _CallSeries:
    """The series one kind of model call counts on (provider, model, agent, outcome)."""

    calls: Any
    duration: Any
    prompt: Any
    cached_prompt: Any
    completion: Any
    cost: Any


_call_series: dict[tuple[str, str, str, str, int, int], _CallSeries] = {}
"""By the call's own provider, model, agent and outcome (bounded by the label bounds: a
value past them counts as "other", so the keys past them are few too)."""


def _series_of(call: ModelCall) -> _CallSeries:
    generations = MODEL_LABELS.generation, AGENT_LABELS.generation
    key = (call.provider, call.model, call.agent, call.outcome.value, *generations)
    found = _call_series.get(key)
    if found is None:
        provider = call.provider or DEFAULT
        model = MODEL_LABELS(call.model)
        agent = AGENT_LABELS(call.agent)
        found = _CallSeries(
            labelled(MODEL_CALLS, provider, model, agent, call.outcome.value),
            labelled(MODEL_CALL_DURATION, provider, model),
            labelled(MODEL_TOKENS, provider, model, agent, "prompt"),
            labelled(MODEL_TOKENS, provider, model, agent, "cached_prompt"),
            labelled(MODEL_TOKENS, provider, model, agent, "completion"),
            labelled(MODEL_COST, provider, model, agent),
        )
        if len(_call_series) >= 10_000:  # an unbounded stream of names: start over
            _call_series.clear()
        _call_series[key] = found
    return found


def observe_model_call(call: ModelCall, seconds: float) -> None:
    """Count one model call (each candidate of a fallback chain tried is one), as the ledger
    keeps it, and how long it took: `agentd_model_calls_total`, its duration, tokens and
    cost. Called once per call by the engine."""
    series = _series_of(call)
    series.calls.inc()
    series.duration.observe(max(0.0, seconds))
    if call.prompt_tokens > 0:
        series.prompt.inc(call.prompt_tokens)
    if call.cached_prompt_tokens > 0:
        series.cached_prompt.inc(call.cached_prompt_tokens)
    if call.completion_tokens > 0:
        series.completion.inc(call.completion_tokens)
    if call.cost_micros > 0:
        series.cost.inc(call.cost_micros)


def count_fallback(provider: str, model: str) -> None:
    """A candidate of a fallback chain failed and the chain moved on to the next."""
    labelled(PROVIDER_FALLBACKS, provider or DEFAULT, MODEL_LABELS(model)).inc()


def count_breaker_opened(provider: str) -> None:
    """A provider's circuit breaker opened."""
    labelled(BREAKER_OPENINGS, provider or DEFAULT).inc()


def observe_event(task: Task, payload: ev.EventPayload) -> None:
    match payload:
        case ev.StatusChanged(current=TaskStatus.RUNNING, previous=TaskStatus.PENDING):
            TASKS_STARTED.labels(task.mode.value).inc()
        case ev.StatusChanged(current=current) if current.terminal:
            TASKS_FINISHED.labels(current.value, task.mode.value).inc()
            seconds = (utcnow() - task.created_at).total_seconds()
            TASK_DURATION.labels(task.mode.value, current.value).observe(max(0.0, seconds))
            _ended(task, payload.stop_reason or task.stop_reason)
        case ev.GuardrailDecided():
            count_guardrail(payload)
        case ev.ReflectionVerdict(passed=passed):
            REFLECTIONS.labels("true" if passed else "false").inc()
        case ev.UsageReported(role=role, call=usage):
            LLM_TOKENS.labels(role, "prompt").inc(usage.prompt_tokens)
            LLM_TOKENS.labels(role, "completion").inc(usage.completion_tokens)
            if usage.reasoning_tokens:
                LLM_TOKENS.labels(role, "reasoning").inc(usage.reasoning_tokens)
            _answered(task.task_id)
        case _:
            pass


def _answered(task_id: str) -> None:
    if task_id not in _calls and len(_calls) >= MAX_TRACKED_TASKS:
        del _calls[next(iter(_calls))]
    _calls[task_id] = _calls.get(task_id, 0) + 1


def _ended(task: Task, stop_reason: StopReason | None) -> None:
    """The task's model calls answered (those of its runs in this process) and why it
    stopped, by its agent."""
    agent = AGENT_LABELS(task.agent.agent_id if task.agent is not None else "")
    labelled(TASK_ITERATIONS, agent).observe(_calls.pop(task.task_id, 0))
    reason = stop_reason.value if stop_reason is not None else "none"
    labelled(TASKS_STOPPED, agent, reason).inc()


def count_guardrail(decided: ev.GuardrailDecided) -> None:
    """Count the decision of a `guardrail_decided` event (`count_decision`)."""
    count_decision(decided.check, decided.point, decided.action)


def count_decision(check: str, point: str | Point, action: str | Action) -> None:
    """Count one guardrail decision in `agentd_guardrail_decisions_total`. Its labels stay
    bounded: a point or action that is not one of the enums' is counted as "other", and so
    is every check name past the first `MAX_CHECK_LABELS` seen; never a user or tenant."""
    point = point.value if isinstance(point, Point) else point
    action = action.value if isinstance(action, Action) else action
    if check not in _checks and len(_checks) < MAX_CHECK_LABELS:
        _checks.add(check)
    GUARDRAIL_DECISIONS.labels(
        check if check in _checks else OTHER,
        point if point in _POINTS else OTHER,
        action if action in _ACTIONS else OTHER,
    ).inc()
