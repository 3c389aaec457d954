"""`agentd audit` (read the audit log: tool calls, RPCs, guardrail decisions) and
`agentd approve` (decide on a waiting tool call).

Both go through the API with the caller's credentials: the audit log shows
the caller's tenant only and needs an auditor (or admin) role; deciding
needs an approver (or admin) role.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from google.protobuf import json_format

from agentd_client.client import AgentClient
from agentd_client.requests import AuditKind
from clients.options import json_object, utc_moment
from clients.output import nothing

MAX_RECORDS = 1_000_000
_KINDS: dict[str, AuditKind] = {"tool": "tool_call", "rpc": "rpc", "guardrail": "guardrail"}


def add_parsers(sub: Any) -> None:
    audit = sub.add_parser("audit", help="read your tenant's audit log (auditor or admin role)")
    audit.add_argument(
        "--kind",
        choices=["tool", "rpc", "guardrail"],
        default="tool",
        help="tool calls, RPCs or guardrail decisions",
    )
    audit.add_argument("--principal", default="", help="only this principal's records")
    audit.add_argument("--tool", default="", help="only calls of (decisions on) this tool")
    audit.add_argument(
        "--outcome",
        default="",
        help="tool outcome (ok, denied, ...), RPC code (OK, ...) or guardrail action (block, ...)",
    )
    audit.add_argument("--check", default="", help="only decisions of this guardrail check")
    audit.add_argument("--task", default="", help="only records of this task")
    audit.add_argument("--since", help="from this time on (ISO 8601; UTC unless a zone)")
    audit.add_argument("--until", help="before this time (ISO 8601; UTC unless a zone)")
    audit.add_argument("--limit", type=int, default=1000, help="at most this many records")
    audit.add_argument("--jsonl", action="store_true", help="one JSON object per line (export)")
    approve = sub.add_parser("approve", help="approve, reject or edit a tool call a task waits on")
    approve.add_argument("task_id")
    approve.add_argument("call_id")
    approve.add_argument("--decision", choices=["approve", "reject", "edit"], default="approve")
    approve.add_argument("--args", help="with --decision edit: the arguments (JSON, or @file)")
    approve.add_argument("--comment", default="")


async def run_audit(client: AgentClient, args: argparse.Namespace) -> int:
    since, until = utc_moment(args.since, "--since"), utc_moment(args.until, "--until")
    limit = max(0, min(args.limit, MAX_RECORDS))
    token, shown = "", 0
    while shown < limit:
        page = await client.list_audit_records(
            _KINDS[args.kind],
            principal_id=args.principal,
            tool_name=args.tool,
            outcome=args.outcome,
            task_id=args.task,
            since=since,
            until=until,
            page_size=min(1000, limit - shown),
            page_token=token,
            check=args.check,
        )
        for record in page.records:
            print(_line(record, args.jsonl or args.json))
            shown += 1
        token = page.next_page_token
        if not token:
            break
    if not shown and not (args.jsonl or args.json):
        print(nothing("audit records", "of your tenant, with these filters"))
    return 0


def _line(record: Any, as_json: bool) -> str:
    body = getattr(record, record.WhichOneof("record"))
    data = json_format.MessageToDict(body, preserving_proto_field_name=True)
    if as_json:
        return json.dumps(data, sort_keys=True)
    if record.HasField("guardrail"):
        point = data.get("point", "")
        where = f"{point}:{data['tool_name']}" if data.get("tool_name") else point
        return (
            f"{data.get('time', '')}  {data.get('principal_id', ''):<16} "
            f"{data.get('check', ''):<14} {data.get('action', ''):<7} {where:<14} "
            f"{data.get('rule', '')}  {data.get('task_id', '')}"
        )
    if record.HasField("rpc"):
        return (
            f"{data.get('time', '')}  {data.get('principal_id', ''):<16} "
            f"{data.get('method', ''):<44} {data.get('code', '')}"
        )
    approval = f"  {data['approval']} by {data['approved_by']}" if data.get("approval") else ""
    return (
        f"{data.get('time', '')}  {data.get('principal_id', ''):<16} "
        f"{data.get('tool_name', ''):<14} {data.get('outcome', ''):<9} "
        f"{data.get('rule', '')}{approval}"
    )


async def run_approve(client: AgentClient, args: argparse.Namespace) -> int:
    arguments = json_object(args.args, "--args") if args.args is not None else None
    task = await client.approve_tool_call(
        args.task_id, args.call_id, args.decision, arguments=arguments, comment=args.comment
    )
    print(f"{args.decision}: recorded; task {task.task_id} continues")
    return 0
