"""`agentd webhooks create|list|get|update|delete|rotate-secret|dead-letters|redeliver`: your
tenant's webhooks (the webhook admin role: admin).

A webhook is sent its tenant's task and inbox events, signed the Standard Webhooks way
(docs/webhooks.md). `create` and `rotate-secret` print the signing secret, shown only
then; `update` replaces what it is given and keeps the rest (it reads the webhook first).
"""

from __future__ import annotations

import argparse
from datetime import UTC
from typing import Any

from agentd.v1 import webhooks_pb2
from agentd_client.client import AgentClient
from clients import options
from clients.output import as_json, columns, nothing

MAX_LISTED = 100_000
"""Webhooks or dead letters `list` and `dead-letters` print at most."""
PAGE = 200
EVENT_TYPES = (
    "task.started",
    "task.waiting",
    "task.completed",
    "task.failed",
    "task.cancelled",
    "inbox.new",
    "inbox.reminded",
    "inbox.escalated",
    "inbox.expired",
)
_HEADER = ("id", "url", "events", "agents", "labels", "paused", "pending", "dead", "failing")
_DEAD_HEADER = ("event", "type", "task", "happened", "given up", "attempts", "last error")


def add_parsers(sub: Any) -> None:
    webhooks = sub.add_parser(
        "webhooks", help="your tenant's webhooks: signed task and inbox events (admin role)"
    )
    verbs = webhooks.add_subparsers(dest="verb", required=True)
    create = verbs.add_parser("create", help="a webhook; prints its signing secret once")
    create.add_argument("url")
    _filters(create)
    create.add_argument("--secret", default="", help="whsec_... of your own (default: made)")
    verbs.add_parser("list", help="the webhooks, with how their deliveries go")
    get = verbs.add_parser("get", help="one webhook")
    get.add_argument("webhook_id")
    update = verbs.add_parser("update", help="change a webhook (what is not given stays)")
    update.add_argument("webhook_id")
    update.add_argument("--url", default=None)
    _filters(update, keep=True)
    delete = verbs.add_parser("delete", help="delete a webhook, its queue and dead letters")
    delete.add_argument("webhook_id")
    rotate = verbs.add_parser("rotate-secret", help="a new signing secret, printed once")
    rotate.add_argument("webhook_id")
    rotate.add_argument("--secret", default="", help="whsec_... of your own (default: made)")
    dead = verbs.add_parser("dead-letters", help="events given up after their retention")
    dead.add_argument("webhook_id")
    again = verbs.add_parser("redeliver", help="queue dead letters again")
    again.add_argument("webhook_id")
    again.add_argument("event_ids", nargs="*", help="the events (default: every dead letter)")


def _filters(parser: argparse.ArgumentParser, keep: bool = False) -> None:
    default: list[str] | None = None if keep else []
    parser.add_argument(
        "--event", action="append", default=default, choices=EVENT_TYPES, help="(repeatable)"
    )
    parser.add_argument("--agent", action="append", default=default, help="(repeatable)")
    parser.add_argument(
        "--label", action="append", default=default, metavar="KEY=VALUE", help="(repeatable)"
    )
    parser.add_argument("--description", default=None if keep else "")
    paused = parser.add_mutually_exclusive_group()
    paused.add_argument("--paused", dest="paused", action="store_true", default=None)
    if keep:
        paused.add_argument("--resume", dest="paused", action="store_false")


def _labels(pairs: list[str]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise options.OptionError(f"--label {pair!r}: write KEY=VALUE")
        labels[key] = value
    return labels


def webhook_rows(webhooks: list[webhooks_pb2.Webhook]) -> list[str]:
    rows: list[tuple[str, ...]] = [_HEADER]
    for w in webhooks:
        labels = ",".join(f"{k}={v}" for k, v in sorted(w.labels.items()))
        rows.append(
            (
                w.webhook_id,
                w.url,
                ",".join(w.event_types) or "all",
                ",".join(w.agents) or "any",
                labels or "-",
                "yes" if w.paused else "no",
                str(w.health.pending),
                str(w.health.dead_letters),
                str(w.health.failing_attempts),
            )
        )
    return columns(rows, {6, 7, 8})


def describe(webhook: webhooks_pb2.Webhook) -> str:
    events = ",".join(webhook.event_types) or "every event"
    line = f"{webhook.webhook_id} -> {webhook.url} ({events})"
    if webhook.secret:
        line += f"\nsigning secret (shown only now): {webhook.secret}"
    return line


async def _all(client: AgentClient) -> list[webhooks_pb2.Webhook]:
    found: list[webhooks_pb2.Webhook] = []
    token = ""
    while len(found) < MAX_LISTED:
        page = await client.list_webhooks(page_size=PAGE, page_token=token)
        found.extend(page.webhooks)
        token = page.next_page_token
        if not token:
            break
    return found[:MAX_LISTED]


async def _dead_letters(client: AgentClient, webhook_id: str) -> list[str]:
    rows: list[tuple[str, ...]] = [_DEAD_HEADER]
    token = ""
    while len(rows) <= MAX_LISTED:
        page = await client.list_webhook_dead_letters(webhook_id, page_size=PAGE, page_token=token)
        for d in page.dead_letters:
            rows.append(
                (
                    d.event_id,
                    d.event_type,
                    d.task_id,
                    f"{d.created_at.ToDatetime(UTC):%Y-%m-%d %H:%M:%S}Z",
                    f"{d.dead_at.ToDatetime(UTC):%Y-%m-%d %H:%M:%S}Z",
                    str(d.attempts),
                    d.last_error or "-",
                )
            )
        token = page.next_page_token
        if not token:
            break
    return columns(rows, {5}) if len(rows) > 1 else [nothing("dead letters")]


async def run_webhooks(client: AgentClient, args: argparse.Namespace) -> int:
    if args.verb == "list":
        webhooks = await _all(client)
        if args.json:
            for webhook in webhooks:
                print(as_json(webhook))
        else:
            print("\n".join(webhook_rows(webhooks)) if webhooks else nothing("webhooks"))
        return 0
    if args.verb == "dead-letters":
        print("\n".join(await _dead_letters(client, args.webhook_id)))
        return 0
    if args.verb == "redeliver":
        queued = await client.redeliver_webhook_events(args.webhook_id, args.event_ids)
        print(f"queued {queued} dead letter(s) again")
        return 0
    if args.verb == "delete":
        await client.delete_webhook(args.webhook_id)
        print(f"deleted {args.webhook_id}")
        return 0
    webhook = await _one(client, args)
    print(as_json(webhook) if args.json else describe(webhook))
    return 0


async def _one(client: AgentClient, args: argparse.Namespace) -> webhooks_pb2.Webhook:
    if args.verb == "create":
        return await client.create_webhook(
            args.url,
            event_types=args.event,
            agents=args.agent,
            labels=_labels(args.label),
            description=args.description,
            paused=bool(args.paused),
            secret=args.secret,
        )
    if args.verb == "get":
        return await client.get_webhook(args.webhook_id)
    if args.verb == "rotate-secret":
        return await client.rotate_webhook_secret(args.webhook_id, secret=args.secret)
    current = await client.get_webhook(args.webhook_id)  # update: what is not given stays
    return await client.update_webhook(
        args.webhook_id,
        args.url if args.url is not None else current.url,
        event_types=args.event if args.event is not None else list(current.event_types),
        agents=args.agent if args.agent is not None else list(current.agents),
        labels=_labels(args.label) if args.label is not None else dict(current.labels),
        description=args.description if args.description is not None else current.description,
        paused=args.paused if args.paused is not None else current.paused,
    )
