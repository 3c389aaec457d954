"""What a task's events and its guardrails' decisions add to the Prometheus series
(core.metrics)."""

from __future__ import annotations

from core.metrics import (
    GUARDRAIL_DECISIONS,
    LLM_TOKENS,
    REFLECTIONS,
    TASK_DURATION,
    TASKS_FINISHED,
    TASKS_STARTED,
)
from records import events as ev
from records.guardrails import Action, Point
from records.tasks import Task, TaskStatus, utcnow

MAX_CHECK_LABELS = 200
"""Distinct check names counted under their own name; later ones count as "other". Check
names come from agent files as well as the server's, so without a bound a tenant could
grow the series without end."""
OTHER = "other"
_POINTS = frozenset(p.value for p in Point)
_ACTIONS = frozenset(a.value for a in Action)
_checks: set[str] = set()


def observe_event(task: Task, payload: ev.EventPayload) -> None:
    match payload:
        case ev.StatusChanged(current=TaskStatus.RUNNING, previous=TaskStatus.PENDING):
            TASKS_STARTED.labels(task.mode.value).inc()
        case ev.StatusChanged(current=current) if current.terminal:
            TASKS_FINISHED.labels(current.value, task.mode.value).inc()
            seconds = (utcnow() - task.created_at).total_seconds()
            TASK_DURATION.labels(task.mode.value, current.value).observe(max(0.0, seconds))
        case ev.GuardrailDecided():
            count_guardrail(payload)
        case ev.ReflectionVerdict(passed=passed):
            REFLECTIONS.labels("true" if passed else "false").inc()
        case ev.UsageReported(role=role, call=usage):
            LLM_TOKENS.labels(role, "prompt").inc(usage.prompt_tokens)
            LLM_TOKENS.labels(role, "completion").inc(usage.completion_tokens)
            if usage.reasoning_tokens:
                LLM_TOKENS.labels(role, "reasoning").inc(usage.reasoning_tokens)
        case _:
            pass


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
