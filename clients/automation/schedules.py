"""`agentd schedules create|get|list|update|pause|resume|delete|trigger|runs`: your
tenant's schedules (changing them: the schedule admin role, operator or admin;
docs/schedules.md). `create` takes one of --cron (with --time-zone), --every SECONDS or
--at TIME; `update` changes what it is given (its update mask) on the etag it reads."""

from __future__ import annotations

import argparse
from datetime import UTC
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2

from agentd.v1 import schedules_pb2 as pb
from agentd_client.client import AgentClient
from agentd_client.requests import to_struct
from clients import options
from clients.output import as_json, columns, nothing, status_name

OVERLAPS = {
    "skip": pb.OVERLAP_POLICY_SKIP,
    "queue-one": pb.OVERLAP_POLICY_QUEUE_ONE,
    "cancel-previous": pb.OVERLAP_POLICY_CANCEL_PREVIOUS,
}
CATCH_UPS = {
    "latest": pb.CATCH_UP_POLICY_LATEST,
    "each": pb.CATCH_UP_POLICY_EACH,
    "none": pb.CATCH_UP_POLICY_NONE,
}
STATES = {1: "active", 2: "paused", 3: "ended"}
RUN_STATES = {1: "started", 2: "queued", 3: "skipped", 4: "missed", 5: "refused", 6: "failed"}
_HEADER = ("id", "name", "when", "agent", "state", "next due", "refusals")
_RUN_HEADER = ("due", "state", "task", "task status", "detail")


def add_parsers(sub: Any) -> None:
    schedules = sub.add_parser("schedules", help="your tenant's schedules: tasks on their own time")
    verbs = schedules.add_subparsers(dest="verb", required=True)
    create = verbs.add_parser("create", help="a schedule, run as you")
    _fields(create)
    verbs.add_parser("list", help="the schedules")
    for verb, words in (
        ("get", "one schedule"),
        ("pause", "pause a schedule"),
        ("resume", "resume a schedule from now"),
        ("delete", "delete a schedule and its runs"),
    ):
        verbs.add_parser(verb, help=words).add_argument("schedule_id")
    update = verbs.add_parser("update", help="change a schedule (what is not given stays)")
    update.add_argument("schedule_id")
    _fields(update)
    trigger = verbs.add_parser("trigger", help="run a schedule now, once per --request-id")
    trigger.add_argument("schedule_id")
    trigger.add_argument("--request-id", default="")
    runs = verbs.add_parser("runs", help="a schedule's runs, newest first, with their tasks")
    runs.add_argument("schedule_id")


def _fields(parser: argparse.ArgumentParser) -> None:
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--cron", default=None, help="5 fields, e.g. '0 7 * * 1-5'")
    when.add_argument("--every", type=float, default=None, metavar="SECONDS")
    when.add_argument("--at", default=None, metavar="TIME", help="ISO 8601, once")
    parser.add_argument("--time-zone", default="UTC", help="IANA zone of --cron")
    parser.add_argument("--goal", default=None)
    parser.add_argument("--agent", default=None, help="id or id@version")
    parser.add_argument("--context", default=None, metavar="JSON")
    parser.add_argument("--name", default=None)
    parser.add_argument("--overlap", choices=sorted(OVERLAPS), default=None)
    parser.add_argument("--catch-up", choices=sorted(CATCH_UPS), default=None)
    parser.add_argument("--catch-up-window", type=float, default=None, metavar="SECONDS")
    parser.add_argument("--label", action="append", default=None, metavar="KEY=VALUE")


def _seconds(value: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(int(value * 1e9))
    return duration


def _draft(args: argparse.Namespace) -> tuple[pb.Schedule, list[str]]:
    """The schedule the options describe and the fields they give (the update mask)."""
    schedule, mask = pb.Schedule(), []
    if args.cron is not None:
        schedule.timing.cron.expression = args.cron
        schedule.timing.cron.time_zone = args.time_zone
    elif args.every is not None:
        schedule.timing.interval.CopyFrom(_seconds(args.every))
    elif args.at is not None:
        moment = options.utc_moment(args.at, "--at")
        assert moment is not None
        stamp = timestamp_pb2.Timestamp()
        stamp.FromDatetime(moment)
        schedule.timing.at.CopyFrom(stamp)
    if args.cron is not None or args.every is not None or args.at is not None:
        mask.append("timing")
    if args.goal is not None or args.agent is not None or args.context is not None:
        schedule.task.goal = args.goal or ""
        schedule.task.agent = args.agent or ""
        if args.context is not None:
            context = options.json_object(args.context, "--context")
            schedule.task.context.CopyFrom(to_struct(context))
        mask.append("task")
    for option, field in (("name", "display_name"), ("label", "labels")):
        if getattr(args, option) is not None:
            mask.append(field)
    schedule.display_name = args.name or ""
    schedule.labels.update(options.labels(args.label))
    if args.overlap is not None:
        schedule.overlap = OVERLAPS[args.overlap]
        mask.append("overlap")
    if args.catch_up is not None:
        schedule.catch_up = CATCH_UPS[args.catch_up]
        mask.append("catch_up")
    if args.catch_up_window is not None:
        schedule.catch_up_window.CopyFrom(_seconds(args.catch_up_window))
        mask.append("catch_up_window")
    return schedule, mask


def _when(schedule: pb.Schedule) -> str:
    kind = schedule.timing.WhichOneof("kind")
    if kind == "cron":
        return f"{schedule.timing.cron.expression} ({schedule.timing.cron.time_zone})"
    if kind == "interval":
        return f"every {schedule.timing.interval.ToTimedelta().total_seconds():g}s"
    return f"at {schedule.timing.at.ToDatetime(UTC).isoformat()}"


def _due(schedule: pb.Schedule) -> str:
    if not schedule.HasField("next_due_time"):
        return "-"
    return schedule.next_due_time.ToDatetime(UTC).isoformat()


def schedule_rows(schedules: list[pb.Schedule]) -> list[str]:
    rows: list[tuple[str, ...]] = [_HEADER]
    for s in schedules:
        state = STATES.get(s.state, "?")
        rows.append(
            (
                s.id,
                s.display_name or "-",
                _when(s),
                s.task.agent or "default",
                state,
                _due(s),
                str(s.refusals),
            )
        )
    return columns(rows, {6})


def run_rows(runs: list[pb.ScheduleRun]) -> list[str]:
    rows: list[tuple[str, ...]] = [_RUN_HEADER]
    for r in runs:
        task_status = status_name(r.task_status) if r.task_status else "-"
        rows.append(
            (
                r.due_time.ToDatetime(UTC).isoformat(),
                RUN_STATES.get(r.state, "pending"),
                r.task_id or "-",
                task_status,
                r.detail or "-",
            )
        )
    return columns(rows)


def describe(schedule: pb.Schedule) -> str:
    line = f"{schedule.id}: {_when(schedule)}, {STATES.get(schedule.state, '?')}"
    line += f", next due {_due(schedule)}, etag {schedule.etag}"
    if schedule.pause_reason:
        line += f"\npaused: {schedule.pause_reason}"
    return line


async def run_schedules(client: AgentClient, args: argparse.Namespace) -> int:
    if args.verb == "list":
        schedules = list((await client.list_schedules()).schedules)
        if args.json:
            for schedule in schedules:
                print(as_json(schedule))
        else:
            print("\n".join(schedule_rows(schedules)) if schedules else nothing("schedules"))
        return 0
    if args.verb == "runs":
        runs = list((await client.list_schedule_runs(args.schedule_id)).runs)
        print("\n".join(run_rows(runs)) if runs else nothing("runs"))
        return 0
    if args.verb == "trigger":
        run = await client.trigger_schedule(args.schedule_id, request_id=args.request_id)
        print(as_json(run) if args.json else "\n".join(run_rows([run])))
        return 0
    if args.verb == "delete":
        await client.delete_schedule(args.schedule_id)
        print(f"deleted {args.schedule_id}")
        return 0
    schedule = await _one(client, args)
    print(as_json(schedule) if args.json else describe(schedule))
    return 0


async def _one(client: AgentClient, args: argparse.Namespace) -> pb.Schedule:
    if args.verb == "create":
        draft, _ = _draft(args)
        return await client.create_schedule(draft)
    if args.verb == "get":
        return await client.get_schedule(args.schedule_id)
    if args.verb == "pause":
        return await client.pause_schedule(args.schedule_id)
    if args.verb == "resume":
        return await client.resume_schedule(args.schedule_id)
    stored = await client.get_schedule(args.schedule_id)  # update: on the etag read
    draft, mask = _draft(args)
    draft.id = stored.id
    if "task" in mask:
        merged = pb.ScheduledTask()
        merged.CopyFrom(stored.task)
        merged.MergeFrom(draft.task)
        draft.task.CopyFrom(merged)
    if not mask:
        raise options.OptionError("update: give at least one field to change")
    return await client.update_schedule(draft, update_mask=mask, etag=stored.etag)
