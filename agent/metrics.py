"""What a task's events add to the Prometheus series (core.metrics)."""

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
from records.tasks import Task, TaskStatus, utcnow


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
    """Count a guardrail decision, by check, point and action (never by user or tenant)."""
    GUARDRAIL_DECISIONS.labels(decided.check, decided.point, decided.action).inc()
