"""What makes a schedule acceptable, each problem a field violation naming the field as
the API does (`schedule.timing.cron.time_zone`)."""

from __future__ import annotations

import json
from datetime import datetime

from agent.limits import MAX_CONTEXT_BYTES, MAX_TASK_CHARS
from agent.requests import label_violations
from core.errors import FieldViolation, InvalidArgumentError
from records.schedules.model import Schedule, TimingKind
from records.schedules.timing import cron_gap, cron_problem, zone_problem

CONTEXT_KEY = "schedule"
"""The context key each run sets (`{schedule_id, due_time}`); a schedule may not."""


def violations(schedule: Schedule, now: datetime, min_interval: float) -> list[FieldViolation]:
    """Every problem with `schedule` (as created or updated at `now`)."""
    found = _timing(schedule, now, min_interval)
    task = schedule.task
    if not task.goal.strip():
        found.append(FieldViolation("schedule.task.goal", "is required"))
    elif len(task.goal) > MAX_TASK_CHARS:
        found.append(
            FieldViolation("schedule.task.goal", f"is at most {MAX_TASK_CHARS} characters")
        )
    size = len(json.dumps(dict(task.context), separators=(",", ":"), default=str).encode())
    if size > MAX_CONTEXT_BYTES:
        found.append(
            FieldViolation("schedule.task.context", f"is at most {MAX_CONTEXT_BYTES} bytes")
        )
    if CONTEXT_KEY in task.context:
        found.append(
            FieldViolation(
                "schedule.task.context", "may not have the key 'schedule': each run sets it"
            )
        )
    if task.timeout_seconds < 0:
        found.append(FieldViolation("schedule.task.timeout", "may not be negative"))
    if schedule.catch_up_window_seconds < 0:
        found.append(FieldViolation("schedule.catch_up_window", "may not be negative"))
    found += label_violations(task.labels, "schedule.task.labels")
    found += label_violations(schedule.labels, "schedule.labels")
    return found


def _timing(schedule: Schedule, now: datetime, min_interval: float) -> list[FieldViolation]:
    timing = schedule.timing
    found: list[FieldViolation] = []
    if timing.kind is TimingKind.CRON:
        problem = cron_problem(timing.expression)
        if problem:
            found.append(FieldViolation("schedule.timing.cron.expression", problem))
        zone = zone_problem(timing.time_zone)
        if zone:
            found.append(FieldViolation("schedule.timing.cron.time_zone", zone))
        valid = not problem and not zone
        if valid and cron_gap(timing.expression, timing.time_zone, now) < min_interval:
            found.append(
                FieldViolation(
                    "schedule.timing.cron.expression",
                    f"must be due at most once every {min_interval:g} seconds "
                    "(AGENTD_SCHEDULE_MIN_INTERVAL_SECONDS)",
                )
            )
    elif timing.kind is TimingKind.INTERVAL:
        if timing.interval_seconds < min_interval:
            found.append(
                FieldViolation(
                    "schedule.timing.interval",
                    f"is at least {min_interval:g} seconds (AGENTD_SCHEDULE_MIN_INTERVAL_SECONDS)",
                )
            )
    elif timing.at is None or timing.at <= now:
        found.append(FieldViolation("schedule.timing.at", "must be in the future"))
    if timing.start and timing.end and timing.end <= timing.start:
        found.append(FieldViolation("schedule.timing.end_time", "must be after start_time"))
    return found


def check(schedule: Schedule, now: datetime, min_interval: float) -> None:
    """InvalidArgumentError listing every problem with `schedule`, if it has any."""
    found = violations(schedule, now, min_interval)
    if found:
        raise InvalidArgumentError(found)
