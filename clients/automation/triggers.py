"""`agentd triggers create|list|get|delete|rotate`: your tenant's inbound triggers (the
trigger admin role: operator, admin).

A trigger starts a task of its agent each time another system POSTs a delivery signed
with its secret to `/v1/triggers/<id>` on the HTTP address (docs/triggers.md). `create`
and `rotate` print the signing secret, shown only then.
"""

from __future__ import annotations

import argparse
from datetime import UTC, timedelta
from typing import Any

from agentd.v1 import schedules_pb2 as pb
from agentd_client.client import AgentClient
from agentd_client.triggers.methods import trigger_draft
from clients import options
from clients.output import as_json, columns, nothing

MAX_LISTED = 100_000
PAGE = 200
_HEADER = ("id", "name", "agent", "principal", "deliveries", "refused", "last delivery")


def add_parsers(sub: Any) -> None:
    triggers = sub.add_parser(
        "triggers", help="your tenant's inbound triggers: signed deliveries start tasks"
    )
    verbs = triggers.add_subparsers(dest="verb", required=True)
    create = verbs.add_parser("create", help="a trigger; prints its signing secret once")
    create.add_argument("goal", help="the task each delivery starts")
    create.add_argument("--agent", default="", help="id or id@version (default: the default)")
    create.add_argument("--context", default="{}", help="a JSON object, or @file")
    create.add_argument("--token-budget", type=int, default=0)
    create.add_argument(
        "--spend-limit",
        default="0",
        help="what each task may spend on model calls, a decimal amount of the server's "
        "currency (0.25; default 0: no limit of its own)",
    )
    create.add_argument("--label", action="append", default=[], metavar="KEY=VALUE")
    create.add_argument("--name", default="", help="a person's name for it")
    create.add_argument("--secret", default="", help="whsec_... of your own (default: made)")
    verbs.add_parser("list", help="the triggers, with their deliveries")
    for verb, words in (("get", "one trigger"), ("delete", "delete a trigger")):
        verbs.add_parser(verb, help=words).add_argument("trigger_id")
    rotate = verbs.add_parser("rotate", help="a new signing secret, printed once")
    rotate.add_argument("trigger_id")
    rotate.add_argument("--secret", default="", help="whsec_... of your own (default: made)")
    rotate.add_argument(
        "--previous-ttl",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long the old secret still verifies (default: an hour)",
    )


def trigger_rows(triggers: list[pb.Trigger]) -> list[str]:
    rows: list[tuple[str, ...]] = [_HEADER]
    for t in triggers:
        last = "-"
        if t.HasField("last_delivery_time"):
            last = f"{t.last_delivery_time.ToDatetime(UTC):%Y-%m-%d %H:%M:%S}Z"
        name = t.display_name or "-"
        agent = t.task.agent or "(default)"
        rows.append((t.id, name, agent, t.principal, str(t.deliveries), str(t.refused), last))
    return columns(rows, {4, 5})


def describe(trigger: pb.Trigger) -> str:
    line = f"{trigger.id}: POST /v1/triggers/{trigger.id} starts {trigger.task.goal!r}"
    if trigger.secret:
        line += f"\nsigning secret (shown only now): {trigger.secret}"
    return line


async def _all(client: AgentClient) -> list[pb.Trigger]:
    found: list[pb.Trigger] = []
    token = ""
    while len(found) < MAX_LISTED:
        page = await client.list_triggers(page_size=PAGE, page_token=token)
        found.extend(page.triggers)
        token = page.next_page_token
        if not token:
            break
    return found[:MAX_LISTED]


async def run_triggers(client: AgentClient, args: argparse.Namespace) -> int:
    if args.verb == "list":
        triggers = await _all(client)
        if args.json:
            for trigger in triggers:
                print(as_json(trigger))
        else:
            print("\n".join(trigger_rows(triggers)) if triggers else nothing("triggers"))
        return 0
    if args.verb == "delete":
        await client.delete_trigger(args.trigger_id)
        print(f"deleted {args.trigger_id}")
        return 0
    trigger = await _one(client, args)
    print(as_json(trigger) if args.json else describe(trigger))
    return 0


async def _one(client: AgentClient, args: argparse.Namespace) -> pb.Trigger:
    if args.verb == "create":
        draft = trigger_draft(
            args.goal,
            agent=args.agent,
            context=options.json_object(args.context, "--context"),
            token_budget=args.token_budget,
            spend_limit=options.micros(args.spend_limit, "--spend-limit"),
            labels=options.labels(args.label),
            display_name=args.name,
        )
        return await client.create_trigger(draft, secret=args.secret)
    if args.verb == "rotate":
        ttl = timedelta(seconds=args.previous_ttl) if args.previous_ttl is not None else None
        return await client.rotate_trigger_secret(
            args.trigger_id, secret=args.secret, previous_secret_ttl=ttl
        )
    return await client.get_trigger(args.trigger_id)
