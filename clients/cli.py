"""The client half of the `agentd` command line: talk to a server through its API.

(`server/cli.py` adds the server's own commands: serve, migrate, keys, grants,
fake-llm.) It uses the Python client and the generated code only.

    agentd tools [--category web]
    agentd call-tool calculator --args '{"expression": "2 + 2"}'
    agentd task TASK_ID
    agentd cancel TASK_ID [--reason TEXT]
    agentd exec "summarise ..." [--follow] [--conversation ID [--busy enqueue]]
    agentd conversations create|list|show|delete
    agentd events TASK_ID [--after N]
    agentd health

Output is meant for people; `--json` prints the server's messages as JSON
(one object per line for streams). Exit status: 0 on success, 1 when the
call failed (the error is printed on stderr), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from google.protobuf import json_format

from agentd.v1 import events_pb2, tasks_pb2
from agentd_client.client import DEFAULT_TARGET, AgentClient, to_python
from agentd_client.errors import AgentdError
from clients import audit_cli, conversations_cli
from clients.output import as_json

TARGET_VARIABLE = "AGENTD_TARGET"
"""The server the client commands talk to (default: DEFAULT_TARGET)."""
API_KEY_VARIABLE = "AGENTD_API_KEY"
"""The credential the client commands send."""
ENVIRONMENT = (TARGET_VARIABLE, API_KEY_VARIABLE)
"""Every variable the client commands read (the server's are its settings)."""

MODES = {
    "auto": tasks_pb2.EXECUTION_MODE_AUTO,
    "function-calling": tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING,
    "text-react": tasks_pb2.EXECUTION_MODE_TEXT_REACT,
    "plan-and-execute": tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE,
}


def _enum_name(prefix: str, name: str) -> str:
    return name.removeprefix(prefix).lower()


def describe_event(event: events_pb2.TaskEvent) -> str:
    """One line for a person reading a task's progress."""
    kind = event.WhichOneof("payload") or "unknown"
    payload: Any = getattr(event, kind, None)
    head = f"#{event.sequence:<4} {kind:<20}"
    if kind == "status_changed":
        status = tasks_pb2.TaskStatus.Name(payload.current)
        return f"{head} {_enum_name('TASK_STATUS_', status)} {payload.detail}".rstrip()
    if kind in ("text_delta", "reasoning_delta"):
        return f"{head} {payload.text!r}"
    if kind == "tool_call_started":
        return f"{head} {payload.tool_name}({json.dumps(to_python(payload.arguments))})"
    if kind == "tool_call_finished":
        outcome = payload.error.message if payload.HasField("error") else payload.text
        return f"{head} {payload.tool_name} -> {outcome[:200]}"
    if kind == "final_answer":
        return f"{head}\n{payload.text}"
    if kind == "error":
        return f"{head} {payload.reason}: {payload.message}"
    return f"{head} {json_format.MessageToJson(payload, indent=None)}"


async def _tools(client: AgentClient, args: argparse.Namespace) -> int:
    tools = await client.list_tools(args.category)
    if args.json:
        for tool in tools:
            print(as_json(tool))
    else:
        for tool in tools:
            level = _enum_name("PERMISSION_LEVEL_", tools_permission_name(tool.required_permission))
            summary = tool.description.split(". ")[0]
            print(f"{tool.name:<14} {tool.category:<6} {level:<8} {summary}")
    return 0


async def _call_tool(client: AgentClient, args: argparse.Namespace) -> int:
    arguments = audit_cli.json_object(args.args, "--args")
    if arguments is None:
        return 2
    result = await client.call_tool(args.name, arguments, idempotency_key=args.idempotency_key)
    if args.json:
        print(as_json(result))
    elif result.HasField("error"):
        print(f"tool error: {result.error.message}", file=sys.stderr)
    else:
        print(result.text)
    return 1 if result.HasField("error") else 0


async def _task(client: AgentClient, args: argparse.Namespace) -> int:
    """`task` and `cancel`: both print the task."""
    task = (
        await client.get_task(args.task_id)
        if args.command == "task"
        else await client.cancel_task(args.task_id, args.reason)
    )
    if args.json:
        print(as_json(task))
    else:
        status = _enum_name("TASK_STATUS_", tasks_pb2.TaskStatus.Name(task.status))
        print(
            f"{task.task_id}  {status}  "
            f"step {task.progress.current_step}/{task.progress.total_steps}"
        )
        if task.final_answer:
            print(task.final_answer)
        if task.error.message:
            print(f"error: {task.error.reason}: {task.error.message}")
    return 0


async def _events(client: AgentClient, args: argparse.Namespace) -> int:
    """`exec` (without --follow: only until the first event) and `events`."""
    if args.command == "exec":
        stream = client.execute(
            args.task,
            tools=[t for t in args.tools.split(",") if t] if args.tools else (),
            max_iterations=args.max_iterations,
            mode=MODES[args.mode],
            conversation_id=args.conversation,
            busy_policy=args.busy,
        )
    else:
        stream = client.stream_task_events(args.task_id, args.after)
    async for event in stream:
        print(as_json(event) if args.json else describe_event(event), flush=True)
        if args.command == "exec" and not args.follow:
            if not args.json:
                print(
                    f"task {event.task_id} started; follow it with: agentd events {event.task_id}"
                )
            break
    return 0


async def _health(client: AgentClient, args: argparse.Namespace) -> int:
    status = await client.health(args.service)
    print(status)
    return 0 if status == "SERVING" else 1


_COMMANDS: dict[str, Callable[[AgentClient, argparse.Namespace], Awaitable[int]]] = {
    "tools": _tools,
    "call-tool": _call_tool,
    "task": _task,
    "cancel": _task,
    "exec": _events,
    "events": _events,
    "audit": audit_cli.run_audit,
    "approve": audit_cli.run_approve,
    "health": _health,
    "conversations": conversations_cli.run_conversations,
}


async def _run(args: argparse.Namespace) -> int:
    async with AgentClient(args.address, api_key=args.api_key, timeout=args.timeout) as client:
        command = _COMMANDS.get(args.command)
        if command is not None:
            return await command(client, args)
    raise AssertionError(args.command)


def tools_permission_name(value: int) -> str:
    from agentd.v1 import tools_pb2

    return tools_pb2.PermissionLevel.Name(value)  # type: ignore[arg-type]


def build_parser() -> tuple[argparse.ArgumentParser, Any]:
    """The parser of the client commands, and its subcommand set (the server's command
    line adds its own to it)."""
    parser = argparse.ArgumentParser(
        prog="agentd", description="agentd: a gRPC service that runs LLM agents."
    )
    parser.add_argument(
        "--address",
        default=os.environ.get(TARGET_VARIABLE, DEFAULT_TARGET),
        help="server to talk to (default: $AGENTD_TARGET or %(default)s)",
    )
    parser.add_argument(
        "--api-key", default=os.environ.get(API_KEY_VARIABLE), help="credential ($AGENTD_API_KEY)"
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per unary call")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    sub = parser.add_subparsers(dest="command", required=True)

    tools = sub.add_parser("tools", help="list the tools you may use")
    tools.add_argument("--category", default="")
    call = sub.add_parser("call-tool", help="call one tool")
    call.add_argument("name")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument("--idempotency-key", default="")
    task = sub.add_parser("task", help="show a task")
    task.add_argument("task_id")
    cancel = sub.add_parser("cancel", help="cancel a task")
    cancel.add_argument("task_id")
    cancel.add_argument("--reason", default="")
    exe = sub.add_parser("exec", help="start a task")
    exe.add_argument("task")
    exe.add_argument("--follow", action="store_true", help="stream events until the task ends")
    exe.add_argument("--mode", choices=sorted(MODES), default="auto")
    exe.add_argument("--tools", default="", help="comma-separated allow-list of tools")
    exe.add_argument("--max-iterations", type=int, default=0)
    exe.add_argument("--conversation", default="", help="the conversation the task is a turn of")
    exe.add_argument(
        "--busy",
        choices=["reject", "enqueue", "interrupt"],
        default="reject",
        help="when a task of the conversation runs: refuse, wait, or interrupt it",
    )
    events = sub.add_parser("events", help="replay and follow a task's events")
    events.add_argument("task_id")
    events.add_argument("--after", type=int, default=0, help="start after this sequence number")
    health = sub.add_parser("health", help="check the server's health")
    health.add_argument("--service", default="")
    audit_cli.add_parsers(sub)
    conversations_cli.add_parsers(sub)
    return parser, sub


def run(args: argparse.Namespace) -> int:
    """Run a parsed client command; the exit status."""
    try:
        return asyncio.run(_run(args))
    except AgentdError as error:
        print(f"error: {error}", file=sys.stderr)
        for violation in error.field_violations:
            print(f"  {violation.field}: {violation.description}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def main(argv: Sequence[str] | None = None) -> int:
    parser, _ = build_parser()
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
