"""A schedule and a run to and from JSON-ready dicts (what the SQL store keeps)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from core.identity import Principal
from records.conversations.model import BusyPolicy
from records.schedules.model import (
    CatchUp,
    Overlap,
    RunState,
    Schedule,
    ScheduleRun,
    ScheduleState,
    TaskTemplate,
    Timing,
    TimingKind,
)


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _parse(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def run_to_json(run: ScheduleRun | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {
        "schedule_id": run.schedule_id,
        "tenant": run.tenant,
        "due_at": _time(run.due_at),
        "state": run.state.value,
        "task_id": run.task_id,
        "reason": run.reason,
        "request_id": run.request_id,
        "created_at": _time(run.created_at),
    }


def run_from_json(data: dict[str, Any] | None) -> ScheduleRun | None:
    if data is None:
        return None
    due = _parse(data["due_at"])
    assert due is not None
    return ScheduleRun(
        schedule_id=data["schedule_id"],
        tenant=data["tenant"],
        due_at=due,
        state=RunState(data["state"]),
        task_id=data["task_id"],
        reason=data["reason"],
        request_id=data["request_id"],
        created_at=_parse(data["created_at"]),
    )


def _timing_to_json(timing: Timing) -> dict[str, Any]:
    return {
        "kind": timing.kind.value,
        "expression": timing.expression,
        "time_zone": timing.time_zone,
        "interval_seconds": timing.interval_seconds,
        "at": _time(timing.at),
        "start": _time(timing.start),
        "end": _time(timing.end),
    }


def _timing_from_json(data: dict[str, Any]) -> Timing:
    return Timing(
        kind=TimingKind(data["kind"]),
        expression=data["expression"],
        time_zone=data["time_zone"],
        interval_seconds=data["interval_seconds"],
        at=_parse(data["at"]),
        start=_parse(data["start"]),
        end=_parse(data["end"]),
    )


def _task_to_json(task: TaskTemplate) -> dict[str, Any]:
    return {
        "agent": task.agent,
        "goal": task.goal,
        "context": dict(task.context),
        "token_budget": task.token_budget,
        "spend_limit": task.spend_limit,
        "timeout_seconds": task.timeout_seconds,
        "conversation_id": task.conversation_id,
        "busy_policy": task.busy_policy.value,
        "labels": dict(task.labels),
    }


def _task_from_json(data: dict[str, Any]) -> TaskTemplate:
    return TaskTemplate(
        agent=data["agent"],
        goal=data["goal"],
        context=data["context"],
        token_budget=data["token_budget"],
        spend_limit=data["spend_limit"],
        timeout_seconds=data["timeout_seconds"],
        conversation_id=data["conversation_id"],
        busy_policy=BusyPolicy(data["busy_policy"]),
        labels=data["labels"],
    )


def schedule_to_json(schedule: Schedule) -> dict[str, Any]:
    principal = schedule.principal
    return {
        "schedule_id": schedule.schedule_id,
        "tenant": schedule.tenant,
        "timing": _timing_to_json(schedule.timing),
        "task": _task_to_json(schedule.task),
        "principal": [principal.id, principal.tenant, list(principal.roles), principal.via],
        "display_name": schedule.display_name,
        "overlap": schedule.overlap.value,
        "catch_up": schedule.catch_up.value,
        "catch_up_window_seconds": schedule.catch_up_window_seconds,
        "state": schedule.state.value,
        "pause_reason": schedule.pause_reason,
        "etag": schedule.etag,
        "revision": schedule.revision,
        "next_due": _time(schedule.next_due),
        "wake_at": _time(schedule.wake_at),
        "queued_due": _time(schedule.queued_due),
        "last_run": run_to_json(schedule.last_run),
        "current_task_id": schedule.current_task_id,
        "refusals": schedule.refusals,
        "labels": dict(schedule.labels),
        "created_at": _time(schedule.created_at),
        "updated_at": _time(schedule.updated_at),
    }


def schedule_from_json(data: dict[str, Any]) -> Schedule:
    principal_id, tenant, roles, via = data["principal"]
    return Schedule(
        schedule_id=data["schedule_id"],
        tenant=data["tenant"],
        timing=_timing_from_json(data["timing"]),
        task=_task_from_json(data["task"]),
        principal=Principal(principal_id, tenant, tuple(roles), via),
        display_name=data["display_name"],
        overlap=Overlap(data["overlap"]),
        catch_up=CatchUp(data["catch_up"]),
        catch_up_window_seconds=data["catch_up_window_seconds"],
        state=ScheduleState(data["state"]),
        pause_reason=data["pause_reason"],
        etag=data["etag"],
        revision=data.get("revision", ""),
        next_due=_parse(data["next_due"]),
        wake_at=_parse(data["wake_at"]),
        queued_due=_parse(data["queued_due"]),
        last_run=run_from_json(data["last_run"]),
        current_task_id=data["current_task_id"],
        refusals=data["refusals"],
        labels=data["labels"],
        created_at=_parse(data["created_at"]),
        updated_at=_parse(data["updated_at"]),
    )
