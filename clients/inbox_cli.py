"""`agentd inbox [approve|deny|answer|resume|history]`: what tasks of your tenant wait for
you, and what became of it.

`agentd inbox` lists the approvals, questions, resumes and budget approvals you may answer
(ListPendingActions), oldest first, one page at a time (the next page's token on stderr)
or every page with --all; each is answered by a verb, through the task RPCs:

    agentd inbox approve TASK_ID CALL_ID [--comment ...]   # ApproveToolCall, approve
    agentd inbox deny TASK_ID CALL_ID [--comment ...]      # ApproveToolCall, reject
    agentd inbox answer TASK_ID REQUEST_ID TEXT            # ProvideInput (TEXT - : stdin)
    agentd inbox resume TASK_ID [--comment ...]            # ResumeTask

CALL_ID and REQUEST_ID are the listing's `request` column (a budget's is `budget:<id>`).
`agentd inbox history [--task ID] [--tree ID]` prints the inbox's history
(ListActionHistory), oldest first: each action opened, reminded, escalated, answered (by
whom, how) or timed out (and what the deadline did).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from agentd.v1 import inbox_pb2
from agentd_client.client import AgentClient
from agentd_client.inbox import PENDING_KINDS, PendingKind
from agentd_client.requests import Decision, to_python
from clients.output import as_json, columns, nothing, span, status_name, table

MAX_LISTED = 100_000
"""Actions `inbox --all` prints at most."""
HEADER = ("kind", "task", "root", "request", "agent", "asked by", "waiting", "deadline", "what")
_NAMES = {wire: name for name, wire in PENDING_KINDS.items()}
HISTORY_HEADER = (
    "time",
    "what",
    "task",
    "request",
    "tool",
    "actor",
    "outcome",
    "roles",
    "deadline",
)


def add_parsers(sub: Any) -> None:
    inbox = sub.add_parser(
        "inbox",
        help="what tasks wait for you to approve, answer or resume (ListPendingActions)",
        description="Without a verb: the actions you may take, oldest first.",
    )
    inbox.add_argument(
        "--kind", action="append", choices=sorted(PENDING_KINDS), help="(repeatable)"
    )
    inbox.add_argument("--agent", default="", help="of tasks run as this agent: id or id@version")
    inbox.add_argument("--root", default="", help="of the task tree under this top task")
    inbox.add_argument("--limit", type=int, default=50, help="actions per page, 1-200 (50)")
    inbox.add_argument("--page-token", default="", help="where the previous page stopped")
    inbox.add_argument("--all", action="store_true", help="follow the pages to the end")
    verbs = inbox.add_subparsers(dest="verb", metavar="[VERB]")
    for verb, what in (("approve", "approve a call (ApproveToolCall)"), ("deny", "reject it")):
        decide = verbs.add_parser(verb, help=what)
        decide.add_argument("task_id")
        decide.add_argument("call_id", help="the listing's request (budget:<id> for a budget)")
        decide.add_argument("--comment", default="", help="passed on to the model, audited")
    answer = verbs.add_parser("answer", help="answer a question (ProvideInput)")
    answer.add_argument("task_id")
    answer.add_argument("request_id", help="the listing's request (question:<call id>)")
    answer.add_argument("text", help="the answer; - reads it from stdin")
    resume = verbs.add_parser("resume", help="run a failed call again (ResumeTask)")
    resume.add_argument("task_id")
    resume.add_argument("--comment", default="", help="why (kept in the task's events)")
    history = verbs.add_parser(
        "history",
        help="what became of the actions (ListActionHistory)",
        description="Each action opened, reminded, escalated, answered or timed out, oldest "
        "first: of a task, of a task tree, or (an approver's or auditor's) every task.",
    )
    history.add_argument("--task", default="", help="of this task")
    history.add_argument("--tree", default="", help="of the task tree under this top task")
    # set only when given here: the same options before the verb mean the same
    history.add_argument(
        "--limit", type=int, default=argparse.SUPPRESS, help="entries per page, 1-500 (50)"
    )
    history.add_argument("--page-token", default=argparse.SUPPRESS, help="where it stopped")
    history.add_argument("--all", action="store_true", default=argparse.SUPPRESS, help="every page")


async def run_inbox(client: AgentClient, args: argparse.Namespace) -> int:
    if args.verb is None:
        return await _list(client, args)
    if args.verb == "history":
        return await _history(client, args)
    if args.verb in ("approve", "deny"):
        decision: Decision = "approve" if args.verb == "approve" else "reject"
        task = await client.approve_tool_call(
            args.task_id, args.call_id, decision, comment=args.comment
        )
        done = f"{'approved' if decision == 'approve' else 'denied'} {args.call_id}"
    elif args.verb == "answer":
        text = sys.stdin.read() if args.text == "-" else args.text
        task = await client.provide_input(args.task_id, args.request_id, text)
        done = f"answered {args.request_id}"
    else:
        task = await client.resume_task(args.task_id, args.comment)
        done = "resumed"
    print(
        as_json(task) if args.json else f"{done}; task {task.task_id} is {status_name(task.status)}"
    )
    return 0


async def _list(client: AgentClient, args: argparse.Namespace) -> int:
    kinds: list[PendingKind] = list(args.kind or ())
    token: str = args.page_token
    found: list[inbox_pb2.PendingAction] = []
    while len(found) < MAX_LISTED:
        page = await client.list_pending_actions(
            kinds=kinds,
            agent=args.agent,
            root_task_id=args.root,
            page_size=args.limit,
            page_token=token,
        )
        found.extend(page.actions)
        token = page.next_page_token
        if not token or not args.all:
            break
    if args.json:
        for action in found:
            print(as_json(action))
    elif found:
        width = shutil.get_terminal_size((160, 24)).columns
        print("\n".join(action_rows(found, datetime.now(UTC), width)))
    else:
        print(nothing("actions wait for you"))
    if token:
        print(f"more: agentd inbox --page-token {token} (or --all)", file=sys.stderr)
    return 0


def action_rows(actions: Sequence[inbox_pb2.PendingAction], now: datetime, width: int) -> list[str]:
    """The actions as a table for people, under a header; what each asks is cut to fit
    `width` columns."""
    rows: list[Sequence[str]] = [HEADER]
    for a in actions:
        created = a.created_at.ToDatetime(UTC)
        deadline = a.deadline.ToDatetime(UTC) if a.HasField("deadline") else None
        rows.append(
            (
                _NAMES.get(a.kind, "?"),
                a.task_id,
                "-" if a.root_task_id == a.task_id else a.root_task_id,
                a.request_id,
                a.agent or "-",
                a.asked_by or "-",
                span(max(0.0, (now - created).total_seconds())),
                _deadline(deadline, now),
                what(a),
            )
        )
    return table(rows, width)


def _deadline(deadline: datetime | None, now: datetime) -> str:
    if deadline is None:
        return "-"
    left = (deadline - now).total_seconds()
    return f"in {span(left)}" if left > 0 else "passed"


def what(action: inbox_pb2.PendingAction) -> str:
    """What an action asks, in one line: a call with its (redacted) arguments, a question,
    why a call failed, a budget's soft limit."""
    if action.HasField("arguments"):
        shown = json.dumps(to_python(action.arguments), sort_keys=True, ensure_ascii=False)
        return f"{action.tool_name}({shown})"
    if action.kind in (
        inbox_pb2.PENDING_ACTION_KIND_APPROVAL,
        inbox_pb2.PENDING_ACTION_KIND_RESUME,
    ):
        return f"{action.tool_name}: {action.text}"
    return action.text


async def _history(client: AgentClient, args: argparse.Namespace) -> int:
    token: str = args.page_token
    found: list[inbox_pb2.ActionHistoryEntry] = []
    while len(found) < MAX_LISTED:
        page = await client.list_action_history(
            task_id=args.task, root_task_id=args.tree, page_size=args.limit, page_token=token
        )
        found.extend(page.entries)
        token = page.next_page_token
        if not token or not args.all:
            break
    if args.json:
        for entry in found:
            print(as_json(entry))
    elif found:
        print("\n".join(history_rows(found)))
    else:
        print(nothing("history", "no action was opened, or its entries were swept"))
    if token:
        print(f"more: agentd inbox history --page-token {token} (or --all)", file=sys.stderr)
    return 0


def history_rows(entries: Sequence[inbox_pb2.ActionHistoryEntry]) -> list[str]:
    """The entries as aligned columns for people, under a header: when, what happened to
    which kind of action, its task and request, the tool, who or what took the step and
    how, the roles and the deadline from then on ("-" for none)."""
    rows: list[Sequence[str]] = [HISTORY_HEADER]
    for e in entries:
        step = inbox_pb2.ActionHistoryKind.Name(e.kind).removeprefix("ACTION_HISTORY_KIND_")
        rows.append(
            (
                _when(e.time.ToDatetime(UTC)),
                f"{_NAMES.get(e.action_kind, '?')} {step.lower().replace('_', ' ')}",
                e.task_id,
                e.request_id,
                e.tool_name or "-",
                e.actor or "-",
                e.outcome or "-",
                ",".join(e.roles) or "-",
                _when(e.deadline.ToDatetime(UTC)) if e.HasField("deadline") else "-",
            )
        )
    return columns(rows)


def _when(at: datetime) -> str:
    """`2026-12-08 09:00:00Z`: a time in UTC, to the second."""
    return at.strftime("%Y-%m-%d %H:%M:%SZ")
