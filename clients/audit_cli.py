"""`agentd audit` (read the audit log: tool calls, RPCs, guardrail decisions), `agentd
trace` (a task's durable trace, with its children's, as a tree) and `agentd approve`
(decide on a waiting tool call).

All go through the API with the caller's credentials: the audit log shows
the caller's tenant only and needs an auditor (or admin) role; a trace is its
task owner's, or any of the tenant's for an auditor (or admin); deciding
needs an approver (or admin) role.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from google.protobuf import json_format

from agentd.v1 import traces_pb2
from agentd_client.client import AgentClient
from agentd_client.errors import TraceNotFoundError
from agentd_client.requests import AuditKind
from clients.options import json_object, utc_moment
from clients.output import as_json, cut, describe_usage, nothing, span

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
    trace = sub.add_parser(
        "trace", help="a task's durable trace and its children's, as a tree (owner or auditor)"
    )
    trace.add_argument("task_id")
    trace.add_argument("--depth", type=int, default=5, help="children this many levels down")
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


async def run_trace(client: AgentClient, args: argparse.Namespace) -> int:
    """Print the task's trace, then each child's under the call that started it (or at
    the end), indented a level per generation; with --json, each page as it came."""
    await _show_trace(client, args.task_id, max(0, args.depth), args.json, "")
    return 0


async def _show_trace(
    client: AgentClient, task_id: str, depth: int, json_lines: bool, indent: str
) -> None:
    pages: list[traces_pb2.GetTaskTraceResponse] = []
    token = ""
    try:
        while True:
            page = await client.get_task_trace(task_id, page_size=500, page_token=token)
            pages.append(page)
            token = page.next_page_token
            if not token:
                break
    except TraceNotFoundError:
        if not indent:
            raise
        print(f"{indent}task {task_id}: no trace kept")
        return
    first = pages[0]
    if json_lines:
        for page in pages:
            print(as_json(page))
    else:
        agent = f"  {first.agent}" if first.agent else ""
        marked = "  [trace cut: the task's cap was reached]" if first.cut else ""
        print(f"{indent}task {task_id}{agent}  {cut(first.task, 60)!r}{marked}")
    children = list(first.child_task_ids) if depth > 0 else []
    for entry in (e for page in pages for e in page.entries):
        if not json_lines:
            print(f"{indent}  {_trace_line(entry)}")
        child = entry.tool_call.child_task_id if entry.HasField("tool_call") else ""
        if child in children:
            children.remove(child)
            await _show_trace(client, child, depth - 1, json_lines, indent + "    ")
    for child in children:  # children no kept call names
        await _show_trace(client, child, depth - 1, json_lines, indent + "    ")


def _trace_line(entry: traces_pb2.TraceEntry) -> str:
    """One entry of a trace, for people."""
    marked = "  [cut]" if entry.cut else ""
    kind = entry.WhichOneof("detail")
    if kind == "model_call":
        call = entry.model_call
        reply = call.reply_text.strip().splitlines()[0] if call.reply_text.strip() else ""
        asked = ", ".join(c.name for c in call.reply_tool_calls)
        said = cut(reply, 60) if reply else (f"calls {asked}" if asked else "")
        failed = f"  error: {cut(call.error, 60)}" if call.error else ""
        return (
            f"model {call.role} {call.model}  {describe_usage(call.usage)}  "
            f"{span(call.latency_seconds)}  {said}{failed}{marked}"
        )
    if kind == "tool_call":
        tool = entry.tool_call
        arguments = cut(json_format.MessageToJson(tool.arguments, indent=None), 40)
        result = f"error: {tool.error}" if tool.error else tool.result_text
        source = traces_pb2.TraceToolSource.Name(tool.source).removeprefix("TRACE_TOOL_SOURCE_")
        shown = "" if source == "LIVE" else f"  ({source.lower()})"
        return (
            f"tool {tool.tool}({arguments}) -> {cut(result, 60)}  "
            f"{span(tool.duration_seconds)}{shown}{marked}"
        )
    if kind == "critic":
        verdict = "accepted" if entry.critic.accepted else "not accepted"
        return f"critic on {entry.critic.subject}: {verdict}  {cut(entry.critic.feedback, 60)}"
    decision = entry.decision
    by = f" by {decision.decided_by}" if decision.decided_by else ""
    on = f" {decision.tool}" if decision.tool else ""
    return f"{decision.kind}{on}: {decision.decision}{by}  {cut(decision.reason, 60)}"


async def run_approve(client: AgentClient, args: argparse.Namespace) -> int:
    arguments = json_object(args.args, "--args") if args.args is not None else None
    task = await client.approve_tool_call(
        args.task_id, args.call_id, args.decision, arguments=arguments, comment=args.comment
    )
    print(f"{args.decision}: recorded; task {task.task_id} continues")
    return 0
