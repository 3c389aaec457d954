"""ScheduleService's messages <-> `records.schedules` (InvalidArgumentError naming the
field for a value no schedule can hold)."""

from __future__ import annotations

from agentd.v1 import conversations_pb2 as cpb
from agentd.v1 import schedules_pb2 as pb
from core.errors import FieldViolation, InvalidArgumentError
from core.identity import ANONYMOUS
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
from records.tasks import TaskStatus
from server.convert.tasks import (
    busy_policy,
    task_status_to_proto,
    timestamp_from_proto,
    to_duration,
    to_timestamp,
)
from server.convert.values import dict_to_struct, struct_to_dict

_OVERLAPS = {
    pb.OVERLAP_POLICY_UNSPECIFIED: Overlap.SKIP,
    pb.OVERLAP_POLICY_SKIP: Overlap.SKIP,
    pb.OVERLAP_POLICY_QUEUE_ONE: Overlap.QUEUE_ONE,
    pb.OVERLAP_POLICY_CANCEL_PREVIOUS: Overlap.CANCEL_PREVIOUS,
}
_CATCH_UPS = {
    pb.CATCH_UP_POLICY_UNSPECIFIED: CatchUp.LATEST,
    pb.CATCH_UP_POLICY_LATEST: CatchUp.LATEST,
    pb.CATCH_UP_POLICY_EACH: CatchUp.EACH,
    pb.CATCH_UP_POLICY_NONE: CatchUp.NONE,
}
_STATES = {
    ScheduleState.ACTIVE: pb.SCHEDULE_STATE_ACTIVE,
    ScheduleState.PAUSED: pb.SCHEDULE_STATE_PAUSED,
    ScheduleState.ENDED: pb.SCHEDULE_STATE_ENDED,
}
STATES_BY_PROTO = {value: state for state, value in _STATES.items()}
_RUN_STATES = {
    RunState.PENDING: pb.SCHEDULE_RUN_STATE_UNSPECIFIED,
    RunState.STARTED: pb.SCHEDULE_RUN_STATE_STARTED,
    RunState.QUEUED: pb.SCHEDULE_RUN_STATE_QUEUED,
    RunState.SKIPPED: pb.SCHEDULE_RUN_STATE_SKIPPED,
    RunState.MISSED: pb.SCHEDULE_RUN_STATE_MISSED,
    RunState.REFUSED: pb.SCHEDULE_RUN_STATE_REFUSED,
    RunState.FAILED: pb.SCHEDULE_RUN_STATE_FAILED,
}
_BUSY = {
    BusyPolicy.REJECT: cpb.CONVERSATION_BUSY_POLICY_REJECT,
    BusyPolicy.ENQUEUE: cpb.CONVERSATION_BUSY_POLICY_ENQUEUE,
    BusyPolicy.INTERRUPT: cpb.CONVERSATION_BUSY_POLICY_INTERRUPT,
    BusyPolicy.STEER: cpb.CONVERSATION_BUSY_POLICY_STEER,
    BusyPolicy.FOLLOW_UP: cpb.CONVERSATION_BUSY_POLICY_FOLLOW_UP,
}


def _bad(field: str, why: str) -> InvalidArgumentError:
    return InvalidArgumentError([FieldViolation(field, why)])


def _overlap(value: int) -> Overlap:
    if value not in _OVERLAPS:
        raise _bad("schedule.overlap", f"{value} is not an overlap policy")
    return _OVERLAPS[value]  # type: ignore[index]


def _catch_up(value: int) -> CatchUp:
    if value not in _CATCH_UPS:
        raise _bad("schedule.catch_up", f"{value} is not a catch-up policy")
    return _CATCH_UPS[value]  # type: ignore[index]


def timing_from_proto(timing: pb.ScheduleTiming) -> Timing:
    kind = timing.WhichOneof("kind")
    start = end = None
    if timing.HasField("start_time"):
        start = timestamp_from_proto(timing.start_time, "schedule.timing.start_time")
    if timing.HasField("end_time"):
        end = timestamp_from_proto(timing.end_time, "schedule.timing.end_time")
    if kind == "cron":
        zone = timing.cron.time_zone or "UTC"
        return Timing(TimingKind.CRON, timing.cron.expression, zone, start=start, end=end)
    if kind == "interval":
        seconds = timing.interval.ToTimedelta().total_seconds()
        return Timing(TimingKind.INTERVAL, interval_seconds=seconds, start=start, end=end)
    if kind == "at":
        at = timestamp_from_proto(timing.at, "schedule.timing.at")
        return Timing(TimingKind.ONCE, at=at, start=start, end=end)
    raise _bad("schedule.timing", "is required: a cron expression, an interval or an instant")


def task_from_proto(task: pb.ScheduledTask) -> TaskTemplate:
    try:
        policy = busy_policy(task.busy_policy)
    except InvalidArgumentError:
        raise _bad("schedule.task.busy_policy", "is not a conversation busy policy") from None
    return TaskTemplate(
        agent=task.agent,
        goal=task.goal,
        context=struct_to_dict(task.context, "schedule.task.context"),
        token_budget=task.token_budget,
        spend_limit=task.spend_limit,
        timeout_seconds=task.timeout.ToTimedelta().total_seconds(),
        conversation_id=task.conversation_id,
        busy_policy=policy,
        labels=dict(task.labels),
    )


def schedule_from_proto(schedule: pb.Schedule) -> Schedule:
    """A draft: the service fills its id, tenant, principal, etag and times."""
    return Schedule(
        schedule_id=schedule.id,
        tenant="",
        timing=timing_from_proto(schedule.timing),
        task=task_from_proto(schedule.task),
        principal=ANONYMOUS,
        display_name=schedule.display_name,
        overlap=_overlap(schedule.overlap),
        catch_up=_catch_up(schedule.catch_up),
        catch_up_window_seconds=schedule.catch_up_window.ToTimedelta().total_seconds(),
        labels=dict(schedule.labels),
    )


def _timing_to_proto(timing: Timing) -> pb.ScheduleTiming:
    message = pb.ScheduleTiming()
    if timing.kind is TimingKind.CRON:
        message.cron.expression = timing.expression
        message.cron.time_zone = timing.time_zone
    elif timing.kind is TimingKind.INTERVAL:
        message.interval.CopyFrom(to_duration(timing.interval_seconds))
    elif timing.at is not None:
        message.at.CopyFrom(to_timestamp(timing.at))
    if timing.start is not None:
        message.start_time.CopyFrom(to_timestamp(timing.start))
    if timing.end is not None:
        message.end_time.CopyFrom(to_timestamp(timing.end))
    return message


def _task_to_proto(task: TaskTemplate) -> pb.ScheduledTask:
    return pb.ScheduledTask(
        agent=task.agent,
        goal=task.goal,
        context=dict_to_struct(dict(task.context)),
        token_budget=task.token_budget,
        spend_limit=task.spend_limit,
        timeout=to_duration(task.timeout_seconds),
        conversation_id=task.conversation_id,
        busy_policy=_BUSY[task.busy_policy],
        labels=dict(task.labels),
    )


def run_to_proto(run: ScheduleRun, status: TaskStatus | None = None) -> pb.ScheduleRun:
    message = pb.ScheduleRun(
        schedule_id=run.schedule_id,
        due_time=to_timestamp(run.due_at),
        state=_RUN_STATES[run.state],
        task_id=run.task_id,
        detail=run.reason,
        manual=bool(run.request_id),
    )
    if status is not None:
        message.task_status = task_status_to_proto(status)
    if run.created_at is not None:
        message.fire_time.CopyFrom(to_timestamp(run.created_at))
    return message


def schedule_to_proto(schedule: Schedule) -> pb.Schedule:
    message = pb.Schedule(
        id=schedule.schedule_id,
        display_name=schedule.display_name,
        timing=_timing_to_proto(schedule.timing),
        task=_task_to_proto(schedule.task),
        overlap={v: k for k, v in _OVERLAPS.items() if k}[schedule.overlap],
        catch_up={v: k for k, v in _CATCH_UPS.items() if k}[schedule.catch_up],
        catch_up_window=to_duration(schedule.catch_up_window_seconds),
        state=_STATES[schedule.state],
        pause_reason=schedule.pause_reason,
        principal=schedule.principal.id,
        etag=schedule.etag,
        refusals=schedule.refusals,
        labels=dict(schedule.labels),
    )
    for field, moment in (
        ("next_due_time", schedule.next_due),
        ("create_time", schedule.created_at),
        ("update_time", schedule.updated_at),
    ):
        if moment is not None:
            getattr(message, field).CopyFrom(to_timestamp(moment))
    if schedule.last_run is not None:
        message.last_run.CopyFrom(run_to_proto(schedule.last_run))
    return message


MASKABLE = ("display_name", "timing", "task", "overlap", "catch_up", "catch_up_window", "labels")


def masked(stored: pb.Schedule, given: pb.Schedule, mask: list[str]) -> pb.Schedule:
    """`stored` with the fields `mask` names (every maskable one when empty) taken from
    `given`; names that are not fields are left for the service to refuse."""
    merged = pb.Schedule()
    merged.CopyFrom(stored)
    for name in [n for n in (mask or MASKABLE) if n in MASKABLE]:
        if name == "labels":
            merged.labels.clear()
            merged.labels.update(given.labels)
        elif name in ("timing", "task", "catch_up_window"):
            getattr(merged, name).CopyFrom(getattr(given, name))
        else:
            setattr(merged, name, getattr(given, name))
    return merged
