"""`agentd exec|events|tasks|task|cancel|plan|input`: tasks, from the start to the answer.

`exec` prints the new task's id first, as one line `task <id>` on stderr (stdout keeps
the events, as JSON lines with --json). `exec --follow` and `events --follow` follow a
task to its end and, when the stream is lost (the server restarts, the network drops),
resume it from the last event seen: at most --retries times in a row, waiting
--retry-delay seconds, doubled each time (at most 30 s). Their exit status is 1 when the
task failed or was cancelled.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator
from typing import Any

from google.protobuf import json_format

from agentd.v1 import events_pb2, tasks_pb2
from agentd_client.client import AgentClient
from agentd_client.errors import UnavailableError
from agentd_client.files.artifacts import Part
from agentd_client.requests import to_python
from clients import options
from clients.output import (
    TERMINAL,
    as_json,
    describe_citations,
    describe_event,
    describe_summary,
    describe_task,
    describe_usage,
    ended,
    nothing,
    status_name,
)

MODES = {
    "auto": tasks_pb2.EXECUTION_MODE_AUTO,
    "function-calling": tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING,
    "text-react": tasks_pb2.EXECUTION_MODE_TEXT_REACT,
    "plan-and-execute": tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE,
}
STATUSES = {status_name(v): v for v in tasks_pb2.TaskStatus.values() if v}
MAX_RETRY_DELAY = 30.0
MAX_LISTED = 1_000_000
"""Tasks `tasks --all` prints at most."""
MAX_SCANNED = 20
"""ListTasks pages one `tasks` page reads at most looking for top-level tasks."""


def _emit(event: events_pb2.TaskEvent, args: argparse.Namespace) -> None:
    print(as_json(event) if args.json else describe_event(event), flush=True)


def _exit_status(status: int) -> int:
    return 0 if status == tasks_pb2.TASK_STATUS_COMPLETED else 1


async def follow(
    client: AgentClient,
    args: argparse.Namespace,
    stream: AsyncIterator[events_pb2.TaskEvent],
    task_id: str,
    after: int,
) -> int:
    """Print `stream`'s events until the task ends; resume after a lost stream."""
    failures = 0
    while True:  # ends: at the task's end, or after `retries` failures in a row
        try:
            async for event in stream:
                if event.sequence <= after:
                    continue  # seen before the stream was lost
                _emit(event, args)
                after, failures = event.sequence, 0
                status = ended(event)
                if status is not None:
                    return _exit_status(status)
            task = await client.get_task(task_id)
            if task.status in TERMINAL:  # it ended at or before `after`: all seen
                return _exit_status(task.status)
            lost = "the stream ended before the task did"
        except UnavailableError as error:
            lost = " ".join(str(error).split())
        if failures >= args.retries:
            print(
                f"error: {lost}; gave up after {failures} retries: "
                f"agentd events {task_id} --after {after} --follow",
                file=sys.stderr,
            )
            return 1
        delay = min(MAX_RETRY_DELAY, args.retry_delay * 2 ** min(failures, 10))
        failures += 1
        print(
            f"stream lost ({lost}); resuming after #{after} in {delay:g} s "
            f"({failures}/{args.retries})",
            file=sys.stderr,
            flush=True,
        )
        await asyncio.sleep(delay)
        stream = client.stream_task_events(task_id, after)


def _plan(text: str | None) -> tasks_pb2.Plan | None:
    if text is None:
        return None
    plan = tasks_pb2.Plan()
    try:
        json_format.ParseDict(options.json_object(text, "--plan"), plan)
    except json_format.ParseError as error:
        raise options.OptionError(f"--plan is not a plan: {error}") from None
    return plan


def part_of(given: str) -> Part:
    """`--part`: an http(s) URL, else a file (its type from its extension)."""
    if given.startswith(("http://", "https://")):
        return Part.from_url(given)
    try:
        return Part.from_path(given)
    except OSError as error:
        raise options.OptionError(f"--part {given}: {error.strerror}") from None


async def run_exec(client: AgentClient, args: argparse.Namespace) -> int:
    stream = client.execute(
        args.task,
        tools=[t for t in args.tools.split(",") if t],
        context=options.json_object(args.context, "--context") if args.context else None,
        max_iterations=args.max_iterations,
        mode=MODES[args.mode],
        idempotency_key=args.idempotency_key,
        labels=options.labels(args.label),
        plan=_plan(args.plan),
        agent=args.agent,
        conversation_id=args.conversation,
        busy_policy=args.busy,
        parts=[part_of(given) for given in args.part or ()],
    )
    task_id = ""
    try:
        async for event in stream:
            task_id = event.task_id
            print(f"task {task_id}", file=sys.stderr, flush=True)
            _emit(event, args)
            if args.follow and ended(event) is None:
                return await follow(client, args, stream, task_id, event.sequence)
            if not args.json:
                print(f"follow it with: agentd events {task_id} --follow", file=sys.stderr)
            return 0
    except asyncio.CancelledError:
        if task_id:
            print(
                f"\ntask {task_id} goes on: agentd events {task_id} --follow, "
                f"or agentd cancel {task_id}",
                file=sys.stderr,
            )
        raise
    print("error: the server ended the stream before the task's first event", file=sys.stderr)
    return 1


async def run_events(client: AgentClient, args: argparse.Namespace) -> int:
    """The events so far (after --after); with --follow, until the task ends."""
    if args.follow:
        stream = client.stream_task_events(args.task_id, args.after)
        return await follow(client, args, stream, args.task_id, args.after)
    task = await client.get_task(args.task_id)
    if task.last_sequence <= args.after:
        if not args.json:
            print(nothing(f"events after #{args.after}", f"the last is #{task.last_sequence}"))
        return 0
    async for event in client.stream_task_events(args.task_id, args.after):
        _emit(event, args)
        if event.sequence >= task.last_sequence:
            break
    return 0


async def run_tasks(client: AgentClient, args: argparse.Namespace) -> int:
    """Your tasks, newest first: one page (its next token on stderr), or all with --all.
    Child tasks (delegations, panel members) only with --children or --parent; without,
    a page is --limit top-level tasks, read from as many ListTasks pages as that takes (at
    most MAX_SCANNED)."""
    statuses = [STATUSES[s] for s in args.status or ()]
    top_only = not (args.children or args.parent)
    token, shown, hidden, pages = args.page_token, 0, 0, 0
    while shown < MAX_LISTED:
        page = await client.list_tasks(
            statuses=statuses,
            page_size=args.limit,
            page_token=token,
            labels=options.labels(args.label),
            agent=args.agent,
            conversation_id=args.conversation,
            parent_task_id=args.parent,
            created_after=options.utc_moment(args.since, "--since"),
            created_before=options.utc_moment(args.until, "--until"),
        )
        listed = [t for t in page.tasks if not (top_only and t.parent_task_id)]
        for task in listed:
            print(as_json(task) if args.json else describe_task(task))
        shown, hidden, pages = (
            shown + len(listed),
            hidden + len(page.tasks) - len(listed),
            pages + 1,
        )
        token = page.next_page_token
        if not token:
            break
        if not args.all and (shown >= (args.limit or 50) or pages >= MAX_SCANNED):
            print(f"more: agentd tasks --page-token {token} (or --all)", file=sys.stderr)
            break
    if not shown and not args.json:
        print(nothing("tasks", f"{hidden} child tasks: --children" if hidden else ""))
    return 0


async def run_task(client: AgentClient, args: argparse.Namespace) -> int:
    """`task` and `cancel`: both print the task."""
    task = (
        await client.get_task(args.task_id)
        if args.command == "task"
        else await client.cancel_task(args.task_id, args.reason)
    )
    if args.json:
        print(as_json(task))
        return 0
    print(
        f"{task.task_id}  {status_name(task.status)}  "
        f"step {task.progress.current_step}/{task.progress.total_steps}"
    )
    if task.agent or task.conversation_id:
        print(f"agent {task.agent or '(default)'}  conversation {task.conversation_id or '-'}")
    if task.parent_task_id:
        print(f"parent {task.parent_task_id}  root {task.root_task_id}  depth {task.depth}")
    if task.HasField("usage") and task.usage.total_tokens:
        print(describe_usage(task.usage))
    for child in task.children:
        panel = f"  {child.panel}" if child.panel else ""
        print(
            f"child {child.task_id}  {child.agent}  {status_name(child.status)}  "
            f"{child.usage.total_tokens} tokens{panel}"
        )
    if task.final_answer:
        print(task.final_answer)
    for line in describe_citations(task.citations):
        print(line)
    for summary in task.artifacts:
        print(f"artifact {describe_summary(summary)}")
    if task.error.message:
        print(f"error: {task.error.reason}: {task.error.message}")
    return 0


def _step(step: tasks_pb2.PlanStep) -> str:
    tool = f"  [{step.tool} {to_python(step.arguments)}]" if step.tool else ""
    after = f"  (after {', '.join(step.depends_on)})" if step.depends_on else ""
    return f"{step.id:<8} {step.description}{tool}{after}"


async def run_plan(client: AgentClient, args: argparse.Namespace) -> int:
    plan = await client.plan(
        args.task,
        tools=[t for t in args.tools.split(",") if t],
        context=options.json_object(args.context, "--context") if args.context else None,
        agent=args.agent,
    )
    if args.json:
        print(as_json(plan))
        return 0
    for step in plan.steps:
        print(_step(step))
    print(
        f"about {plan.estimated_total_seconds:.0f} s in all; to run it as it is (or "
        "edited): agentd plan ... --json > plan.json; agentd exec ... --plan @plan.json",
        file=sys.stderr,
    )
    return 0


async def run_input(client: AgentClient, args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    task = await client.provide_input(args.task_id, args.request_id, text)
    if args.json:
        print(as_json(task))
    else:
        print(f"answered; task {task.task_id} is {status_name(task.status)}")
    return 0


async def run_steer(client: AgentClient, args: argparse.Namespace) -> int:
    message = sys.stdin.read() if args.message == "-" else args.message
    steered = await client.steer_task(args.task_id, message, idempotency_key=args.idempotency_key)
    if args.json:
        print(as_json(steered))
    else:
        task = steered.task
        print(
            f"steered ({steered.steer_id}, event {steered.sequence}); "
            f"task {task.task_id} is {status_name(task.status)}"
        )
    return 0


async def run_resume(client: AgentClient, args: argparse.Namespace) -> int:
    task = await client.resume_task(args.task_id, args.comment)
    if args.json:
        print(as_json(task))
    else:
        print(f"resumed; task {task.task_id} is {status_name(task.status)}")
    return 0


def add_parsers(sub: Any) -> None:
    exe = sub.add_parser("exec", help="start a task; prints `task <id>` on stderr first")
    exe.add_argument("task")
    exe.add_argument("--follow", action="store_true", help="stream events until the task ends")
    exe.add_argument("--mode", choices=sorted(MODES), default="auto")
    exe.add_argument("--agent", default="", help="the agent to run as: id or id@version")
    exe.add_argument("--tools", default="", help="comma-separated allow-list of tools")
    exe.add_argument("--context", help="the request context: a JSON object, or @file")
    exe.add_argument("--label", action="append", metavar="KEY=VALUE", help="(repeatable)")
    exe.add_argument("--idempotency-key", default="", help="a retry with it gets the same task")
    exe.add_argument("--plan", help="a plan to run as given (JSON, or @file; see `plan`)")
    exe.add_argument("--max-iterations", type=int, default=0)
    exe.add_argument(
        "--part",
        action="append",
        metavar="FILE|URL",
        help="a file or image given with the task, or an http(s) URL the server fetches "
        "(repeatable; each is kept as an artifact of the task)",
    )
    exe.add_argument("--conversation", default="", help="the conversation the task is a turn of")
    exe.add_argument(
        "--busy",
        choices=["reject", "enqueue", "interrupt", "steer", "follow_up"],
        default="reject",
        help="when a task of the conversation runs: refuse, wait, interrupt it, steer it "
        "with this text, or follow it up (one may wait)",
    )
    events = sub.add_parser("events", help="a task's events so far, or --follow it")
    events.add_argument("task_id")
    events.add_argument("--after", type=int, default=0, help="start after this sequence number")
    events.add_argument("--follow", action="store_true", help="until the task ends, resuming")
    for follower in (exe, events):
        follower.add_argument("--retries", type=int, default=5, help="resumes in a row (5)")
        follower.add_argument("--retry-delay", type=float, default=1.0, help="seconds (1)")
    _add_listing(sub)
    task = sub.add_parser("task", help="show a task")
    task.add_argument("task_id")
    cancel = sub.add_parser("cancel", help="cancel a task")
    cancel.add_argument("task_id")
    cancel.add_argument("--reason", default="")
    plan = sub.add_parser("plan", help="the plan a task would follow (Plan); runs nothing")
    plan.add_argument("task")
    plan.add_argument("--tools", default="", help="comma-separated allow-list of tools")
    plan.add_argument("--context", help="the request context: a JSON object, or @file")
    plan.add_argument("--agent", default="", help="the agent to plan as: id or id@version")
    answer = sub.add_parser("input", help="answer a question a task asked (ProvideInput)")
    answer.add_argument("task_id")
    answer.add_argument("request_id", help="from the task's input_requested event")
    answer.add_argument("text", help="the answer; - reads it from stdin")
    steer = sub.add_parser("steer", help="add a message to a task while it works (SteerTask)")
    steer.add_argument("task_id")
    steer.add_argument("message", help="the message; - reads it from stdin")
    steer.add_argument("--idempotency-key", default="", help="a retry with it steers once")
    resume = sub.add_parser(
        "resume", help="run again the tool call a task waits on after a resumable failure"
    )
    resume.add_argument("task_id")
    resume.add_argument("--comment", default="", help="why (kept in the task's events)")


def _add_listing(sub: Any) -> None:
    tasks = sub.add_parser("tasks", help="your tasks, newest first (ListTasks)")
    tasks.add_argument("--status", action="append", choices=sorted(STATUSES), help="(repeatable)")
    tasks.add_argument("--label", action="append", metavar="KEY=VALUE", help="(repeatable)")
    tasks.add_argument("--agent", default="", help="run as this agent: id or id@version")
    tasks.add_argument("--conversation", default="", help="turns of this conversation")
    tasks.add_argument(
        "--parent", default="", help="children of this task (its delegations, panel members)"
    )
    tasks.add_argument(
        "--children",
        action="store_true",
        help="list child tasks too (without: top-level tasks only; a task's children show "
        "in `agentd task ID`)",
    )
    tasks.add_argument("--since", help="created at or after (ISO 8601; UTC unless a zone)")
    tasks.add_argument("--until", help="created before (ISO 8601; UTC unless a zone)")
    tasks.add_argument("--limit", type=int, default=50, help="tasks per page, 1-200 (50)")
    tasks.add_argument("--page-token", default="", help="where the previous page stopped")
    tasks.add_argument("--all", action="store_true", help="follow the pages to the end")
