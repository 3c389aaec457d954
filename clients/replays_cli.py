"""`agentd replay TASK_ID`: rerun a recorded task's input as another agent version
(ReplayTask), its tool calls answered from the recording; nothing that writes runs.

    agentd replay TASK_ID [--agent ID@VERSION] [--tools recorded|read-only] [--wait]
                  [--label k=v] [--idempotency-key KEY]

Prints the new task; with --wait, follows it to its end and prints its divergence report
(where it first did other than the recording, and how its tool calls were answered).
"""

from __future__ import annotations

import argparse
from typing import Any

from agentd.v1 import tasks_pb2
from agentd_client.client import AgentClient
from agentd_client.recorded.replays import ReplayToolsName
from clients import options
from clients.output import as_json, ended, status_name

TOOLS: dict[str, ReplayToolsName] = {"recorded": "recorded", "read-only": "read_only"}


def add_parsers(sub: Any) -> None:
    replay = sub.add_parser(
        "replay",
        help="rerun a recorded task as another agent version, tools answered from the recording",
    )
    replay.add_argument("task_id")
    replay.add_argument("--agent", default="", help="id or id@version (default: its own agent)")
    replay.add_argument("--tools", choices=sorted(TOOLS), default="recorded")
    replay.add_argument("--label", action="append", default=[], help="k=v (repeatable)")
    replay.add_argument("--idempotency-key", default="")
    replay.add_argument("--wait", action="store_true", help="wait for its end and its report")


def report_lines(task: tasks_pb2.Task) -> list[str]:
    """A replaying task as people read it: what it replays, its status and, once it ended,
    its divergence report."""
    info = task.replay
    lines = [
        f"{task.task_id}  {status_name(task.status)}  replays {info.source_task_id}  "
        f"agent {task.agent or '(default)'}"
    ]
    if status_name(task.status) in ("pending", "running", "input_required"):
        return lines
    calls = (
        f"tool calls: {info.recorded_calls} recorded, {info.not_run_calls} not run, "
        f"{info.live_calls} live"
    )
    if not info.diverged:
        return [*lines, "did as the recording did", calls]
    found = info.divergence
    where = f" at call {found.index}" if found.kind != "answer" else ""
    return [
        *lines,
        f"diverged: {found.kind}{where}",
        f"  recorded: {found.recorded or '(nothing)'}",
        f"  replayed: {found.replayed or '(nothing)'}",
        calls,
    ]


async def run_replay(client: AgentClient, args: argparse.Namespace) -> int:
    task = await client.replay_task(
        args.task_id,
        agent=args.agent,
        tools=TOOLS[args.tools],
        labels=options.labels(args.label),
        idempotency_key=args.idempotency_key,
    )
    if args.wait:
        async for event in client.stream_task_events(task.task_id):
            if ended(event) is not None:
                break
        task = await client.get_task(task.task_id)
    print(as_json(task) if args.json else "\n".join(report_lines(task)))
    return 0
