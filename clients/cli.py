"""The client half of the `agentd` command line: talk to a server through its API.

(`server/commands/cli.py` adds the server's own commands: serve, migrate, keys, grants,
fake-llm.) It uses the Python client and the generated code only.

    agentd tools [--category web]
    agentd call-tool calculator --args '{"expression": "2 + 2"}'
    agentd exec "summarise ..." [--follow] [--agent ID] [--context JSON|@file] ...
    agentd events TASK_ID [--after N] [--follow]
    agentd tasks [--status running] [--agent ID] [--conversation ID] [--all] [--children]
    agentd task TASK_ID | cancel TASK_ID
    agentd plan "..."  |  agentd input TASK_ID REQUEST_ID TEXT
    agentd agents list|show|create|update|delete|promote
    agentd conversations create|list|show|delete
    agentd kb create|list|delete|add|docs|rm-doc|search  |  agentd memory list|search|forget [--yes]
    agentd artifact list TASK_ID | artifact get TASK_ID NAME [--version N]
    agentd approve TASK_ID CALL_ID | audit | trace TASK_ID [--depth N] | health
    agentd inbox [--kind approval] | inbox approve|deny TASK_ID CALL_ID | answer | resume
    agentd inbox history [--task ID] [--tree ID]
    agentd budgets create|list|update|delete  |  agentd usage [--by agent,day]  |  agentd stats
    agentd webhooks create|list|get|update|delete|rotate-secret|dead-letters|redeliver
    agentd replay TASK_ID [--agent ID@VERSION] [--tools recorded|read-only] [--wait]
    agentd eval run --dataset FILE --agent ID@VERSION [--baseline RUN]  |  eval show|list

The server is $AGENTD_ADDRESS (else 127.0.0.1:50051) and the credential
$AGENTD_API_KEY, unless --address and --api-key say otherwise; these and --json and
--timeout may come before or after the command. Output is meant for people (a listing
that finds nothing says so); `--json` prints the server's messages as JSON (one object per
line, 64-bit integers as numbers). Exit status: 0 on success,
1 when the call failed (one line on stderr says why and what to do), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agentd.v1 import tools_pb2
from agentd_client.client import AgentClient
from agentd_client.environment import ADDRESS_VARIABLES, API_KEY_VARIABLE
from agentd_client.errors import AgentdError
from clients import (
    agents_cli,
    artifacts_cli,
    audit_cli,
    budgets_cli,
    conversations_cli,
    evals_cli,
    inbox_cli,
    knowledge_cli,
    options,
    replays_cli,
    tasks_cli,
    usage_cli,
    webhooks_cli,
)
from clients.automation import schedules as schedules_cli
from clients.automation import triggers as triggers_cli
from clients.output import as_json, error_line, nothing, table

ENVIRONMENT = (*ADDRESS_VARIABLES, API_KEY_VARIABLE)
"""Every variable the client commands read (the server's are its settings)."""


def tool_lines(tools: Sequence[tools_pb2.Tool], width: int) -> list[str]:
    """The tools as a table for people: name, category, permission level, description (cut
    to fit `width` columns, between words)."""
    rows = [(t.name, t.category, _level(t.required_permission), t.description) for t in tools]
    return table(rows, width)


def _level(value: int) -> str:
    name = tools_pb2.PermissionLevel.Name(value)  # type: ignore[arg-type]
    return name.removeprefix("PERMISSION_LEVEL_").lower()


async def _tools(client: AgentClient, args: argparse.Namespace) -> int:
    tools = await client.list_tools(args.category)
    if args.json:
        for tool in tools:
            print(as_json(tool))
        return 0
    where = f" in category {args.category!r}" if args.category else ""
    lines = tool_lines(tools, shutil.get_terminal_size((120, 24)).columns)
    print("\n".join(lines) if lines else nothing(f"tools you may use{where}"))
    return 0


async def _call_tool(client: AgentClient, args: argparse.Namespace) -> int:
    arguments = options.json_object(args.args, "--args")
    result = await client.call_tool(args.name, arguments, idempotency_key=args.idempotency_key)
    if args.json:
        print(as_json(result))
    elif result.HasField("error"):
        print(f"tool error: {result.error.message}", file=sys.stderr)
    else:
        print(result.text)
    return 1 if result.HasField("error") else 0


async def _health(client: AgentClient, args: argparse.Namespace) -> int:
    status = await client.health(args.service)
    print(status)
    return 0 if status == "SERVING" else 1


_COMMANDS: dict[str, Callable[[AgentClient, argparse.Namespace], Awaitable[int]]] = {
    "tools": _tools,
    "call-tool": _call_tool,
    "task": tasks_cli.run_task,
    "cancel": tasks_cli.run_task,
    "exec": tasks_cli.run_exec,
    "events": tasks_cli.run_events,
    "tasks": tasks_cli.run_tasks,
    "plan": tasks_cli.run_plan,
    "input": tasks_cli.run_input,
    "resume": tasks_cli.run_resume,
    "steer": tasks_cli.run_steer,
    "agents": agents_cli.run_agents,
    "audit": audit_cli.run_audit,
    "approve": audit_cli.run_approve,
    "trace": audit_cli.run_trace,
    "inbox": inbox_cli.run_inbox,
    "health": _health,
    "conversations": conversations_cli.run_conversations,
    "kb": knowledge_cli.run_kb,
    "memory": knowledge_cli.run_memory,
    "artifact": artifacts_cli.run_artifact,
    "budgets": budgets_cli.run_budgets,
    "usage": usage_cli.run_usage,
    "stats": usage_cli.run_stats,
    "webhooks": webhooks_cli.run_webhooks,
    "replay": replays_cli.run_replay,
    "eval": evals_cli.run_eval,
    "triggers": triggers_cli.run_triggers,
    "schedules": schedules_cli.run_schedules,
}


async def _run(args: argparse.Namespace) -> int:
    command = _COMMANDS[args.command]
    async with AgentClient(args.address, api_key=args.api_key or "", timeout=args.timeout) as c:
        return await command(c, args)


def build_parser() -> tuple[argparse.ArgumentParser, Any]:
    """The parser of the client commands, and its command set (the server's command line
    adds its own to it; `finish_parser` then gives every command the global options)."""
    parser = argparse.ArgumentParser(
        prog="agentd",
        description="agentd: a gRPC service that runs LLM agents.",
        epilog="--address, --api-key, --timeout and --json also work after the command.",
    )
    parser.add_argument("--version", action="version", version=options.version())
    options.add_global_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tools = sub.add_parser("tools", help="list the tools you may use")
    tools.add_argument("--category", default="")
    call = sub.add_parser("call-tool", help="call one tool")
    call.add_argument("name")
    call.add_argument("--args", default="{}", help="arguments: a JSON object, or @file")
    call.add_argument("--idempotency-key", default="")
    tasks_cli.add_parsers(sub)
    agents_cli.add_parsers(sub)
    conversations_cli.add_parsers(sub)
    knowledge_cli.add_parsers(sub)
    artifacts_cli.add_parsers(sub)
    audit_cli.add_parsers(sub)
    inbox_cli.add_parsers(sub)
    budgets_cli.add_parsers(sub)
    usage_cli.add_parsers(sub)
    webhooks_cli.add_parsers(sub)
    replays_cli.add_parsers(sub)
    evals_cli.add_parsers(sub)
    triggers_cli.add_parsers(sub)
    schedules_cli.add_parsers(sub)
    health = sub.add_parser("health", help="check the server's health")
    health.add_argument("--service", default="")
    return parser, sub


def finish_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give every command's parser the global options (set only when given there)."""
    for command in options.command_parsers(parser):
        options.add_global_options(command, top=False)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run a parsed client command; the exit status."""
    options.resolve_globals(args)
    try:
        return asyncio.run(_run(args))
    except AgentdError as error:
        print(
            f"error: {error_line(error, args.address, args.api_key, args.timeout)}", file=sys.stderr
        )
        return 1
    except options.OptionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def main(argv: Sequence[str] | None = None) -> int:
    parser, _ = build_parser()
    return run(finish_parser(parser).parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
