"""What `agentd budgets`, `agentd usage` and `agentd stats` read from their command line
and print: amounts of money parsed exactly (Decimal, never a float) and shown with 2 to
6 decimals, ranges, groups, every page of a usage report up to a cap, an update that
keeps the limit not given, statistics for people, and what to do about a budget used up.
The commands run as parsed from their command line against a stand-in for the client."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest
from google.protobuf import duration_pb2

from agentd.v1 import tasks_pb2, usage_pb2
from agentd_client.errors import BudgetExhaustedError
from clients import budgets_cli, cli, usage_cli
from clients.options import OptionError, micros, tokens
from clients.output import error_line, money, span
from server.commands.cli import build_parser

USD = "USD"


def parsed(*argv: str) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    args.address, args.api_key = "127.0.0.1:1", ""
    return args


async def run(client: Any, *argv: str) -> int:
    args = parsed(*argv)
    return await cli._COMMANDS[args.command](client, args)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.25", 250_000),
        ("12.50", 12_500_000),
        ("0.1", 100_000),  # exact: a float would make it 100000.00000000001
        ("0.000001", 1),
        ("3", 3_000_000),
        (".5", 500_000),
        ("0", 0),
        ("1000000000.000001", 1_000_000_000_000_001),  # past a float's 15-16 digits
    ],
)
def test_money_is_read_exactly_as_micro_units(text: str, expected: int) -> None:
    assert micros(text, "--limit") == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("0.0000001", "more than 6 decimals"),
        ("1.2345678", "more than 6 decimals"),
        ("-1", "not an amount"),
        ("1e3", "not an amount"),
        ("nan", "not an amount"),
        ("1,50", "not an amount"),
        ("12.50 USD", "not an amount"),
        ("", "not an amount"),
        ("99999999999999", "too large"),  # past int64 in micro-units
    ],
)
def test_money_that_is_not_an_exact_amount_is_refused(text: str, why: str) -> None:
    with pytest.raises(OptionError, match=why):
        micros(text, "--limit")


def test_tokens_are_whole_numbers() -> None:
    assert tokens("5000", "--limit") == 5000
    for text in ("1.5", "-3", "1e3", "", "ten"):
        with pytest.raises(OptionError, match="not a whole number of tokens"):
            tokens(text, "--limit")


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (250_000, "0.25 USD"),
        (12_000_000, "12.00 USD"),
        (1, "0.000001 USD"),
        (1_234_567, "1.234567 USD"),
        (0, "0.00 USD"),
        (10**15, "1000000000.00 USD"),
    ],
)
def test_money_is_shown_with_two_to_six_decimals(amount: int, shown: str) -> None:
    assert money(amount, USD) == shown


def test_spans_of_time_for_people() -> None:
    shown = [span(s) for s in (0.35, 2.5, 250, 7500)]
    assert shown == ["350 ms", "2.5 s", "4 min 10 s", "2 h 5 min"]


def test_groups_in_the_order_given_once_each() -> None:
    agent, model = usage_pb2.USAGE_GROUP_AGENT, usage_pb2.USAGE_GROUP_MODEL
    assert usage_cli.groups("agent, model,agent") == [agent, model]
    assert usage_cli.groups("") == []
    with pytest.raises(OptionError, match="--by 'week': one of tenant, user, agent"):
        usage_cli.groups("agent,week")


def test_days_count_back_from_until_or_now() -> None:
    now = datetime(2026, 3, 10, 12, tzinfo=UTC)
    week = parsed("usage", "--days", "7", "--until", "2026-03-01")
    assert usage_cli.time_range(week, now) == (
        datetime(2026, 2, 22, tzinfo=UTC),
        datetime(2026, 3, 1, tzinfo=UTC),
    )
    assert usage_cli.time_range(parsed("stats", "--days", "1"), now) == (now - timedelta(1), None)
    assert usage_cli.time_range(parsed("usage", "--since", "2026-03-01T09:30"), now) == (
        datetime(2026, 3, 1, 9, 30, tzinfo=UTC),
        None,
    )
    with pytest.raises(OptionError, match="--days 0: give 1 or more"):
        usage_cli.time_range(parsed("usage", "--days", "0"), now)
    with pytest.raises(SystemExit):  # --since and --days are one or the other
        parsed("usage", "--days", "1", "--since", "2026-03-01")


def row(**values: Any) -> usage_pb2.UsageRow:
    counts = {"calls": 1, "prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    return usage_pb2.UsageRow(**{**counts, "cost_micros": 1_500, **values})


class Ledger:
    """GetUsage in pages of two rows (of agents a0, a1, ...), and ListBudgets, as the
    server answers them; the requests kept."""

    def __init__(self, rows: int = 5, budgets: list[usage_pb2.Budget] | None = None) -> None:
        self.rows = [row(agent=f"a{n}") for n in range(rows)]
        self.budgets = budgets or []
        self.requests: list[dict[str, Any]] = []

    async def get_usage(self, **request: Any) -> usage_pb2.GetUsageResponse:
        self.requests.append(request)
        at = int(request["page_token"] or 0)
        following = str(at + 2) if at + 2 < len(self.rows) else ""
        total = row(calls=len(self.rows), unpriced_calls=1)
        return usage_pb2.GetUsageResponse(
            rows=self.rows[at : at + 2], next_page_token=following, total=total, currency=USD
        )

    async def list_budgets(self, **request: Any) -> usage_pb2.ListBudgetsResponse:
        at = int(request["page_token"] or 0)
        following = str(at + 1) if at + 1 < len(self.budgets) else ""
        return usage_pb2.ListBudgetsResponse(
            budgets=self.budgets[at : at + 1], next_page_token=following
        )

    async def update_budget(self, budget_id: str, **limits: int) -> usage_pb2.Budget:
        self.requests.append({"budget_id": budget_id, **limits})
        [budget] = [b for b in self.budgets if b.budget_id == budget_id]
        changed = usage_pb2.Budget()
        changed.CopyFrom(budget)
        changed.limit, changed.soft_limit = limits["limit"], limits["soft_limit"]
        return changed


async def test_usage_follows_every_page_and_prints_a_total(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ledger = Ledger(rows=5)
    assert await run(ledger, "usage", "--by", "agent", "--model", "gpt") == 0
    assert [r["page_token"] for r in ledger.requests] == ["", "2", "4"]
    assert ledger.requests[0]["model"] == "gpt"
    assert ledger.requests[0]["group_by"] == [usage_pb2.USAGE_GROUP_AGENT]
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "agent",
        *["calls", "failed", "prompt", "cached", "completion"],
        "reasoning",
        "tokens",
        "cost",
    ]
    assert [line.split()[0] for line in lines[1:]] == [
        "a0",
        "a1",
        "a2",
        "a3",
        "a4",
        "total",
        "calls",
    ]
    assert lines[1].split() == ["a0", "1", "0", "100", "0", "20", "0", "120", "0.0015", "USD"]
    assert lines[-2].split()[:2] == ["total", "5"]
    assert lines[-1] == "calls without a price (cost 0): 1"
    assert len({len(line) for line in lines[:-1]}) == 1  # aligned: numbers to the right


async def test_usage_stops_at_its_cap_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(usage_cli, "MAX_ROWS", 3)
    ledger = Ledger(rows=9)
    assert await run(ledger, "--json", "usage", "--by", "agent") == 0
    assert len(ledger.requests) == 2  # 4 rows read: the cap passed, no third page
    said = capsys.readouterr()
    report = json.loads(said.out)  # one object: every row read, and the range's total
    assert [r["agent"] for r in report["rows"]] == ["a0", "a1", "a2", "a3"]
    assert (report["total"]["calls"], report["currency"]) == (9, USD)
    assert (
        said.err == "showing the first 4 rows (narrow the range or the groups); the total "
        "is the whole range's\n"
    )


def budget(unit: usage_pb2.BudgetUnit.ValueType, limit: int, soft: int) -> usage_pb2.Budget:
    return usage_pb2.Budget(
        budget_id="bgt_1",
        scope=usage_pb2.BUDGET_SCOPE_TENANT,
        unit=unit,
        window=usage_pb2.BUDGET_WINDOW_NONE,
        limit=limit,
        soft_limit=soft,
        currency=USD if unit == usage_pb2.BUDGET_UNIT_MONEY else "",
    )


async def test_an_update_keeps_the_limit_not_given_in_the_budgets_unit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    money_budget = budget(usage_pb2.BUDGET_UNIT_MONEY, 5_000_000, 4_000_000)
    other = usage_pb2.Budget(budget_id="bgt_0", unit=usage_pb2.BUDGET_UNIT_TOKENS)
    ledger = Ledger(budgets=[other, money_budget])  # on the listing's second page
    assert await run(ledger, "budgets", "update", "bgt_1", "--soft-limit", "2.5") == 0
    assert ledger.requests == [{"budget_id": "bgt_1", "limit": 5_000_000, "soft_limit": 2_500_000}]
    assert capsys.readouterr().out == (
        "updated bgt_1 (tenant, money, none): limit 5.00 USD, soft limit 2.50 USD, spent 0.00 USD\n"
    )
    with pytest.raises(OptionError, match="give --limit, --soft-limit or both"):
        await run(ledger, "budgets", "update", "bgt_1")


def test_the_budgets_table_shows_money_and_no_limit() -> None:
    start = datetime(2026, 3, 1, tzinfo=UTC)
    tokens_budget = budget(usage_pb2.BUDGET_UNIT_TOKENS, 0, 800)
    tokens_budget.window = usage_pb2.BUDGET_WINDOW_MONTH
    tokens_budget.window_start.FromDatetime(start)
    spent = budget(usage_pb2.BUDGET_UNIT_MONEY, 250_000, 0)
    spent.spent, spent.reserved = 120_500, 7
    lines = budgets_cli.budget_rows([tokens_budget, spent])
    assert [line.split() for line in lines[1:]] == [
        ["bgt_1", "tenant", "-", "tokens", "month", "-", "800", "0", "0", "2026-03-01", "00:00Z"],
        [
            "bgt_1",
            "tenant",
            "-",
            "money",
            "none",
            "0.25",
            "USD",
            "-",
            "0.1205",
            "USD",
            "0.000007",
            "USD",
            "-",
        ],
    ]


def stats() -> usage_pb2.GetStatsResponse:
    half = duration_pb2.Duration(nanos=500_000_000)
    tasks = usage_pb2.TaskStats(
        tasks=3,
        completed=2,
        failed=1,
        success_rate=2 / 3,
        p50_duration=half,
        p95_duration=duration_pb2.Duration(seconds=75),
        p50_iterations=2,
        p95_iterations=4.5,
        total_tokens=900,
        cost_micros=30_000,
        stop_reasons=[
            usage_pb2.StopReasonCount(stop_reason=tasks_pb2.STOP_REASON_FINAL_ANSWER, tasks=2)
        ],
    )
    agent = usage_pb2.TaskStats()
    agent.CopyFrom(tasks)
    agent.agent = "support"
    tool = usage_pb2.ToolStats(
        tool="calculator", calls=4, failed=1, success_rate=0.75, p50_latency=half, p95_latency=half
    )
    return usage_pb2.GetStatsResponse(tasks=tasks, agents=[agent], tools=[tool], currency=USD)


async def test_stats_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    class Stats:
        async def get_stats(self, **request: Any) -> usage_pb2.GetStatsResponse:
            assert request["agent"] == "support"
            return stats()

    assert await run(Stats(), "stats", "--agent", "support") == 0
    lines = [" ".join(line.split()) for line in capsys.readouterr().out.splitlines()]
    assert lines == [
        "tasks 3: 2 completed, 1 failed, 0 cancelled; success rate 66.7 %",
        "stop reasons: final_answer 2",
        "duration p50 500 ms, p95 1 min 15 s; model calls p50 2, p95 4.5",
        "tokens 900, cost 0.03 USD",
        "",
        "agent tasks success p50 time p95 time p50 calls p95 calls tokens cost",
        "support 3 66.7 % 500 ms 1 min 15 s 2 4.5 900 0.03 USD",
        "",
        "tool calls failed success p50 time p95 time",
        "calculator 4 1 75 % 500 ms 500 ms",
        "",
        "no model calls",
    ]


def test_a_budget_used_up_says_when_it_starts_afresh_and_how_to_raise_it() -> None:
    error = BudgetExhaustedError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "the tenant's daily budget bgt_1 of 100 tokens is used up",
        reason="BUDGET_EXHAUSTED",
        metadata={"budget_id": "bgt_1"},
        retry_after_seconds=3 * 3600 + 20 * 60,
    )
    assert error_line(error, "127.0.0.1:1", "key", 30) == (
        "RESOURCE_EXHAUSTED BUDGET_EXHAUSTED: the tenant's daily budget bgt_1 of 100 tokens is "
        "used up; it starts afresh in 3 h 20 min; or raise it: agentd budgets update bgt_1 "
        "--limit AMOUNT"
    )
    forever = BudgetExhaustedError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "used up",
        reason="BUDGET_EXHAUSTED",
        metadata={"budget_id": "bgt_2"},
    )
    assert error_line(forever, "127.0.0.1:1", "key", 30).endswith(
        "used up; or raise it: agentd budgets update bgt_2 --limit AMOUNT"
    )
