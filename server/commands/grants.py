"""`agentd grants`: tool grants, managed on the database by its administrators."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import re
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from records.tools.approval_rules import ApprovalRule, ApprovalRuleError, rule_to_json
from records.tools.grants import Grant, TimeWindow, new_grant_id
from records.tools.model import PermissionLevel
from records.waits import WaitAction

_DURATION = re.compile(r"^(\d+)([smhd])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def add_grants_parser(sub: Any) -> None:
    grants = sub.add_parser("grants", help="grant, revoke and list tool grants (on the database)")
    grants.add_argument("--database-url", help="SQLAlchemy URL (default: AGENTD_DATABASE_URL)")
    grants_sub = grants.add_subparsers(dest="grants_command", required=True)
    grant = grants_sub.add_parser("grant", help="give a principal or a role a level on tools")
    grant.add_argument("--tenant", required=True)
    who = grant.add_mutually_exclusive_group(required=True)
    who.add_argument("--principal", help="the principal id the grant is for")
    who.add_argument("--role", help="the role the grant is for")
    grant.add_argument(
        "--tool",
        required=True,
        help="a tool name, <toolset>.* (every tool of a toolset), category:<name>, or '*'",
    )
    grant.add_argument(
        "--level", required=True, choices=[level.name.lower() for level in PermissionLevel]
    )
    until = grant.add_mutually_exclusive_group()
    until.add_argument("--expires", help="expiry, ISO 8601 (e.g. 2026-12-31T18:00:00Z)")
    until.add_argument("--for", dest="lasting", help="lifetime: 30m, 8h, 7d")
    grant.add_argument("--window", help="UTC time window, e.g. 'mon-fri 09:00-17:00'")
    grant.add_argument(
        "--allow",
        action="append",
        metavar="ARGUMENT=PREFIX",
        help="an allowed prefix of an argument's value, e.g. url=https://api.example.com/ or "
        "path=reports/ (repeatable; several prefixes of one argument: any may match)",
    )
    grant.add_argument(
        "--requires-approval", action="store_true", help="each call waits for a human's approval"
    )
    _add_rule_flags(grant)
    listing = grants_sub.add_parser("list", help="the grants in force")
    listing.add_argument("--tenant", help="only this tenant's grants")
    listing.add_argument("--all", action="store_true", help="include revoked grants")
    revoke = grants_sub.add_parser("revoke", help="revoke a grant by its id")
    revoke.add_argument("grant_id")


def _add_rule_flags(grant: Any) -> None:
    """The approval rule of a grant that requires approval (`--requires-approval`)."""
    actions = [action.value for action in WaitAction]
    rule = grant.add_argument_group(
        "approval rule", "who decides on its calls, by when, and what the deadline does"
    )
    rule.add_argument(
        "--approver-role",
        action="append",
        metavar="ROLE",
        help="a role whose holders decide (repeatable; default: AGENTD_APPROVER_ROLES)",
    )
    rule.add_argument("--deadline", help="how long a call waits for a decision: 90s, 30m, 8h")
    rule.add_argument("--on-deadline", choices=actions, help="what the deadline does (deny)")
    rule.add_argument(
        "--escalate-to", action="append", metavar="ROLE", help="escalate: the roles it moves to"
    )
    rule.add_argument("--escalation-deadline", help="escalate: how long they have")
    rule.add_argument(
        "--on-escalation-deadline", choices=actions, help="escalate: what that deadline does"
    )
    rule.add_argument("--remind-before", help="a reminder this long before each deadline")


_FLAGS = {
    "approver_roles": "--approver-role",
    "deadline_seconds": "--deadline",
    "on_deadline": "--on-deadline",
    "escalate_to_roles": "--escalate-to",
    "escalation_deadline_seconds": "--escalation-deadline",
    "on_escalation_deadline": "--on-escalation-deadline",
    "remind_before_seconds": "--remind-before",
}
"""The flag of each field of an approval rule, for its problems."""


def _seconds(text: str | None, flag: str) -> float | None:
    if text is None:
        return None
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"{flag} {text!r} is not like 90s, 30m, 8h or 7d")
    return timedelta(**{_UNITS[match[2]]: int(match[1])}).total_seconds()


def _rule(args: argparse.Namespace) -> ApprovalRule | None:
    """The approval rule the flags give; None when none of them is given."""
    flags = (
        args.approver_role,
        args.deadline,
        args.on_deadline,
        args.escalate_to,
        args.escalation_deadline,
        args.on_escalation_deadline,
        args.remind_before,
    )
    if all(flag is None for flag in flags):
        return None
    if not args.requires_approval:
        raise ValueError("an approval rule's flags need --requires-approval")
    try:
        return ApprovalRule(
            approver_roles=tuple(args.approver_role or ()),
            deadline_seconds=_seconds(args.deadline, "--deadline"),
            on_deadline=WaitAction(args.on_deadline or "deny"),
            escalate_to_roles=tuple(args.escalate_to or ()),
            escalation_deadline_seconds=_seconds(args.escalation_deadline, "--escalation-deadline"),
            on_escalation_deadline=WaitAction(args.on_escalation_deadline or "deny"),
            remind_before_seconds=_seconds(args.remind_before, "--remind-before"),
        )
    except ApprovalRuleError as bad:
        said = "; ".join(f"{_FLAGS.get(name, name)} {what}" for name, what in bad.problems)
        raise ValueError(f"approval rule: {said}") from None


def _expiry(args: argparse.Namespace, now: datetime) -> datetime | None:
    if args.lasting:
        match = _DURATION.match(args.lasting)
        if match is None:
            raise ValueError(f"--for {args.lasting!r} is not like 30m, 8h or 7d")
        return now + timedelta(**{_UNITS[match[2]]: int(match[1])})
    from clients.options import utc_moment  # the client's package: not on `serve`'s path

    moment = utc_moment(args.expires, "--expires")
    if moment is not None and moment <= now:
        raise ValueError("--expires is in the past")
    return moment.astimezone(UTC) if moment is not None else None


def _arguments(pairs: list[str] | None) -> dict[str, tuple[str, ...]]:
    allowed: dict[str, tuple[str, ...]] = {}
    for pair in pairs or ():
        name, sep, prefix = pair.partition("=")
        if not sep or not name or not prefix:
            raise ValueError(f"--allow {pair!r} is not ARGUMENT=PREFIX")
        allowed[name] = (*allowed.get(name, ()), prefix)
    return allowed


def grant_from_args(args: argparse.Namespace, now: datetime | None = None) -> Grant:
    now = now or datetime.now(UTC)
    return Grant(
        grant_id=new_grant_id(),
        tenant=args.tenant,
        subject=f"principal:{args.principal}" if args.principal else f"role:{args.role}",
        tool=args.tool,
        level=PermissionLevel[args.level.upper()],
        created_at=now,
        created_by=f"cli:{getpass.getuser()}",
        expires_at=_expiry(args, now),
        window=TimeWindow.parse(args.window) if args.window else None,
        arguments=_arguments(args.allow),
        requires_approval=args.requires_approval,
        approval=_rule(args),
    )


def grant_to_json(grant: Grant) -> dict[str, Any]:
    return {
        "grant_id": grant.grant_id,
        "tenant": grant.tenant,
        "subject": grant.subject,
        "tool": grant.tool,
        "level": grant.level.name.lower(),
        "expires_at": grant.expires_at.isoformat() if grant.expires_at else None,
        "window": str(grant.window) if grant.window else None,
        "arguments": {k: list(v) for k, v in grant.arguments.items()},
        "requires_approval": grant.requires_approval,
        "approval": rule_to_json(grant.approval) if grant.approval else None,
        "created_by": grant.created_by,
        "created_at": grant.created_at.isoformat(),
        "revoked_at": grant.revoked_at.isoformat() if grant.revoked_at else None,
    }


def _approval_said(grant: Grant) -> str:
    rule = grant.approval
    if rule is None:
        return "approval"
    parts = [f"by {','.join(rule.approver_roles)}" if rule.approver_roles else ""]
    if rule.deadline_seconds is not None:
        parts.append(f"within {rule.deadline_seconds:g}s then {rule.on_deadline.value}")
    if rule.escalates:
        parts.append(
            f"to {','.join(rule.escalate_to_roles)} within "
            f"{rule.escalation_deadline_seconds:g}s then {rule.on_escalation_deadline.value}"
        )
    return " ".join(["approval", *(p for p in parts if p)])


def run_grants(args: argparse.Namespace, url: str) -> int:
    from auth import admin

    if args.grants_command == "grant":
        try:
            grant = grant_from_args(args)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        warnings = asyncio.run(admin.add_grant(url, grant))
        print(f"granted {grant.grant_id}: {grant.subject} {grant.level.name} on {grant.tool}")
        for warning in warnings:
            print(f"warning: {warning.text}", file=sys.stderr)
        return 0
    if args.grants_command == "list":
        for grant in asyncio.run(admin.list_grants(url, args.tenant, args.all)):
            if args.json:
                print(json.dumps(grant_to_json(grant)))
                continue
            conditions = [
                f"until {grant.expires_at:%Y-%m-%d %H:%M}Z" if grant.expires_at else "",
                f"window {grant.window}" if grant.window else "",
                *(f"{k} under {'|'.join(v)}" for k, v in grant.arguments.items()),
                _approval_said(grant) if grant.requires_approval else "",
                "REVOKED" if grant.revoked_at else "",
            ]
            print(
                f"{grant.grant_id}  {grant.tenant:<12} {grant.subject:<24} {grant.tool:<16} "
                f"{grant.level.name:<8} {'; '.join(c for c in conditions if c) or '-'}"
            )
        return 0
    if asyncio.run(admin.revoke_grant(url, args.grant_id)):
        print(f"revoked {args.grant_id}")
        return 0
    print(f"error: no grant in force with id {args.grant_id!r}", file=sys.stderr)
    return 1
