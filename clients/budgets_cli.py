"""`agentd budgets create|list|update|delete`: your tenant's budgets.

A budget bounds what the tenant, one end user or one agent spends on model calls, in
tokens or in money, per UTC day, per month or for all time. Amounts of money are given
and shown as decimal amounts of the server's currency (`12.50`; agentd counts them in
exact micro-units, at most 6 decimals); tokens as whole numbers. Changing budgets needs
the budget admin role (admin), listing them an auditor's or an admin's; `update` reads
the budget first (a limit not given keeps its value), so it needs both.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import UTC
from typing import Any

import grpc

from agentd.v1 import usage_pb2
from agentd_client.client import AgentClient
from agentd_client.errors import BudgetNotFoundError
from clients import options
from clients.output import as_json, columns, money, nothing

MAX_BUDGETS = 100_000
"""Budgets `list` (and `update`, looking for one) reads at most."""
PAGE = 1_000
_MONEY = usage_pb2.BUDGET_UNIT_MONEY
_WHAT = ("id", "scope", "subject", "unit", "window")
_HEADER = (*_WHAT, "limit", "soft limit", "spent", "reserved", "window start")
_AMOUNTS = frozenset({5, 6, 7, 8})
"""The columns of amounts (aligned to the right)."""
_AMOUNTS_SAID = (
    "AMOUNT is a whole number of tokens or, for a budget of money, a decimal amount of the "
    "server's currency (12.50; at most 6 decimals), converted exactly to the micro-units "
    "agentd counts in (12500000)."
)


def _choices(enum: Any, prefix: str) -> list[str]:
    return [name.removeprefix(prefix).lower() for name, value in enum.items() if value]


def _name(enum: Any, prefix: str, value: int) -> str:
    return str(enum.Name(value)).removeprefix(prefix).lower()


def add_parsers(sub: Any) -> None:
    budgets = sub.add_parser(
        "budgets", help="your tenant's budgets of tokens or money (admin role to change them)"
    )
    verbs = budgets.add_subparsers(dest="verb", required=True)
    create = verbs.add_parser(
        "create", help="a budget of the tenant, a user or an agent", description=_AMOUNTS_SAID
    )
    create.add_argument(
        "--scope", required=True, choices=_choices(usage_pb2.BudgetScope, "BUDGET_SCOPE_")
    )
    create.add_argument(
        "--subject", default="", help="the user's principal id, or the agent's id (not: tenant)"
    )
    create.add_argument(
        "--unit", required=True, choices=_choices(usage_pb2.BudgetUnit, "BUDGET_UNIT_")
    )
    create.add_argument(
        "--window",
        required=True,
        choices=_choices(usage_pb2.BudgetWindow, "BUDGET_WINDOW_"),
        help="a UTC day, a calendar month, or none (for all time)",
    )
    _limit_options(create)
    verbs.add_parser("list", help="the budgets, with what their current windows spent")
    update = verbs.add_parser(
        "update",
        help="change a budget's limits (one not given stays)",
        description=f"{_AMOUNTS_SAID} A limit not given keeps its value.",
    )
    update.add_argument("budget_id")
    _limit_options(update)
    delete = verbs.add_parser("delete", help="delete a budget; its tasks draw on it no longer")
    delete.add_argument("budget_id")


def _limit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--limit",
        metavar="AMOUNT",
        help="the hard limit: a task that cannot fit in it is refused or stopped (0: none)",
    )
    parser.add_argument(
        "--soft-limit",
        metavar="AMOUNT",
        help="below --limit: a task's call past it waits for a person's approval (0: none)",
    )


def amount(text: str | None, option: str, unit: int) -> int | None:
    """What a limit option says, in the budget's unit (micro-units for money); None when
    it was not given."""
    if text is None:
        return None
    return options.micros(text, option) if unit == _MONEY else options.tokens(text, option)


def shown(value: int, budget: usage_pb2.Budget) -> str:
    """An amount of `budget`'s unit as people read it."""
    return money(value, budget.currency) if budget.unit == _MONEY else str(value)


def budget_rows(budgets: Sequence[usage_pb2.Budget]) -> list[str]:
    """The budgets as a table for people, under a header."""
    rows: list[Sequence[str]] = [_HEADER]
    for b in budgets:
        start = b.window_start.ToDatetime(UTC) if b.HasField("window_start") else None
        rows.append(
            (
                b.budget_id,
                _name(usage_pb2.BudgetScope, "BUDGET_SCOPE_", b.scope),
                b.subject or "-",
                _name(usage_pb2.BudgetUnit, "BUDGET_UNIT_", b.unit),
                _name(usage_pb2.BudgetWindow, "BUDGET_WINDOW_", b.window),
                shown(b.limit, b) if b.limit else "-",
                shown(b.soft_limit, b) if b.soft_limit else "-",
                shown(b.spent, b),
                shown(b.reserved, b),
                f"{start:%Y-%m-%d %H:%M}Z" if start is not None else "-",
            )
        )
    return columns(rows, _AMOUNTS)


def describe(budget: usage_pb2.Budget) -> str:
    """`bud_… (tenant, tokens, day): limit 1000, soft limit none, spent 120`."""
    scope = _name(usage_pb2.BudgetScope, "BUDGET_SCOPE_", budget.scope)
    whose = f"{scope} {budget.subject}" if budget.subject else scope
    unit = _name(usage_pb2.BudgetUnit, "BUDGET_UNIT_", budget.unit)
    window = _name(usage_pb2.BudgetWindow, "BUDGET_WINDOW_", budget.window)
    hard = shown(budget.limit, budget) if budget.limit else "none"
    soft = shown(budget.soft_limit, budget) if budget.soft_limit else "none"
    return (
        f"{budget.budget_id} ({whose}, {unit}, {window}): limit {hard}, soft limit {soft}, "
        f"spent {shown(budget.spent, budget)}"
    )


async def all_budgets(client: AgentClient) -> list[usage_pb2.Budget]:
    """Every budget of the tenant, page after page (at most MAX_BUDGETS)."""
    found: list[usage_pb2.Budget] = []
    token = ""
    while len(found) < MAX_BUDGETS:
        page = await client.list_budgets(page_size=PAGE, page_token=token)
        found.extend(page.budgets)
        token = page.next_page_token
        if not token:
            break
    return found[:MAX_BUDGETS]


async def run_budgets(client: AgentClient, args: argparse.Namespace) -> int:
    if args.verb == "list":
        budgets = await all_budgets(client)
        if args.json:
            for budget in budgets:
                print(as_json(budget))
        else:
            print("\n".join(budget_rows(budgets)) if budgets else nothing("budgets"))
        return 0
    if args.verb == "create":
        budget = await _create(client, args)
    elif args.verb == "update":
        budget = await _update(client, args)
    else:
        budget = await client.delete_budget(args.budget_id)
    print(as_json(budget) if args.json else f"{args.verb}d {describe(budget)}")
    return 0


async def _create(client: AgentClient, args: argparse.Namespace) -> usage_pb2.Budget:
    unit = usage_pb2.BudgetUnit.Value(f"BUDGET_UNIT_{args.unit.upper()}")
    return await client.create_budget(
        usage_pb2.BudgetScope.Value(f"BUDGET_SCOPE_{args.scope.upper()}"),
        unit,
        usage_pb2.BudgetWindow.Value(f"BUDGET_WINDOW_{args.window.upper()}"),
        subject=args.subject,
        limit=amount(args.limit, "--limit", unit) or 0,
        soft_limit=amount(args.soft_limit, "--soft-limit", unit) or 0,
    )


async def _update(client: AgentClient, args: argparse.Namespace) -> usage_pb2.Budget:
    if args.limit is None and args.soft_limit is None:
        raise options.OptionError("give --limit, --soft-limit or both")
    current = next((b for b in await all_budgets(client) if b.budget_id == args.budget_id), None)
    if current is None:  # as the server would answer an update of it
        raise BudgetNotFoundError(
            grpc.StatusCode.NOT_FOUND, f"no budget {args.budget_id!r}", reason="BUDGET_NOT_FOUND"
        )
    limit = amount(args.limit, "--limit", current.unit)
    soft = amount(args.soft_limit, "--soft-limit", current.unit)
    return await client.update_budget(
        args.budget_id,
        limit=current.limit if limit is None else limit,
        soft_limit=current.soft_limit if soft is None else soft,
    )
