"""`agentd usage` (what your tenant's model calls spent, grouped) and `agentd stats`
(your tenant's tasks, tools and providers over a range), for auditors and admins.

Both read a range [--since, --until): times without a zone are UTC; `--days N` is the N
days before --until (or now). Unset, the server reads the last 30 days (usage) or the
last day (stats). Money is shown in the server's currency, from exact micro-units.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from google.protobuf import duration_pb2

from agentd.v1 import tasks_pb2, usage_pb2
from agentd_client.client import AgentClient
from clients import options
from clients.output import as_json, columns, money, nothing, span

GROUPS = {
    name.removeprefix("USAGE_GROUP_").lower(): value
    for name, value in usage_pb2.UsageGroup.items()
    if value
}
PAGE = 1_000
MAX_ROWS = 100_000
"""Rows `usage` reads at most (100 pages); the total is always the whole range's."""
_COUNTS = ("calls", "failed", "prompt", "cached", "completion", "reasoning", "tokens", "cost")


def _range_options(parser: argparse.ArgumentParser, default: str) -> None:
    start = parser.add_mutually_exclusive_group()
    start.add_argument("--since", help=f"from this time on (ISO 8601; default: {default})")
    start.add_argument("--days", type=int, metavar="N", help="the N days before --until (or now)")
    parser.add_argument("--until", help="before this time (ISO 8601; default: now)")


def add_parsers(sub: Any) -> None:
    usage = sub.add_parser(
        "usage", help="tokens and spend of your tenant's model calls (auditor or admin role)"
    )
    _range_options(usage, "30 days before --until")
    usage.add_argument(
        "--by",
        default="",
        metavar="GROUP,...",
        help=f"a row per value of these: {', '.join(GROUPS)} (default: the total alone)",
    )
    for name in ("user", "agent", "model", "provider"):
        usage.add_argument(f"--{name}", default="", help=f"only this {name}'s calls")
    stats = sub.add_parser(
        "stats", help="your tenant's tasks, tools and providers (auditor or admin role)"
    )
    _range_options(stats, "1 day before --until")
    stats.add_argument("--agent", default="", help="only this agent's tasks (its id)")


def time_range(
    args: argparse.Namespace, now: datetime | None = None
) -> tuple[datetime | None, datetime | None]:
    """[since, until) as the options say; None for a bound left to the server."""
    until = options.utc_moment(args.until, "--until")
    if args.days is None:
        return options.utc_moment(args.since, "--since"), until
    if args.days < 1:
        raise options.OptionError(f"--days {args.days}: give 1 or more")
    return (until or now or datetime.now(UTC)) - timedelta(days=args.days), until


def groups(text: str) -> list[usage_pb2.UsageGroup.ValueType]:
    """`--by agent,model` as the request's groups, in the order given (once each)."""
    chosen: list[usage_pb2.UsageGroup.ValueType] = []
    for name in (part.strip().lower() for part in text.split(",") if part.strip()):
        if name not in GROUPS:
            raise options.OptionError(f"--by {name!r}: one of {', '.join(GROUPS)}")
        if GROUPS[name] not in chosen:
            chosen.append(GROUPS[name])
    return chosen


def usage_rows(
    report: usage_pb2.GetUsageResponse, by: Sequence[usage_pb2.UsageGroup.ValueType]
) -> list[str]:
    """A header, a line per row (the groups' values, then its counts) and a total line."""
    names = [usage_pb2.UsageGroup.Name(g).removeprefix("USAGE_GROUP_").lower() for g in by]
    rows: list[Sequence[str]] = [(*(names or [""]), *_COUNTS)]
    for row in report.rows if by else ():
        rows.append([*(getattr(row, name) or "-" for name in names), *_counts(row, report)])
    label = ["total", *[""] * (len(names) - 1)] if names else ["total"]
    rows.append([*label, *_counts(report.total, report)])
    width = max(1, len(names))
    return columns(rows, range(width, width + len(_COUNTS)))


def _counts(row: usage_pb2.UsageRow, report: usage_pb2.GetUsageResponse) -> list[str]:
    prompt = (row.prompt_tokens, row.cached_prompt_tokens)
    reply = (row.completion_tokens, row.reasoning_tokens)
    numbers = (row.calls, row.failed_calls, *prompt, *reply, row.total_tokens)
    return [*(str(n) for n in numbers), money(row.cost_micros, report.currency)]


async def run_usage(client: AgentClient, args: argparse.Namespace) -> int:
    since, until = time_range(args)
    by = groups(args.by)
    report, token = usage_pb2.GetUsageResponse(), ""
    while True:  # ends: at the last page, or at MAX_ROWS
        page = await client.get_usage(
            start=since,
            end=until,
            group_by=by,
            user=args.user,
            agent=args.agent,
            model=args.model,
            provider=args.provider,
            page_size=PAGE,
            page_token=token,
        )
        report.rows.extend(page.rows)
        report.total.CopyFrom(page.total)
        report.currency = page.currency
        token = page.next_page_token
        if not token or len(report.rows) >= MAX_ROWS:
            break
    if token:
        shown = f"showing the first {len(report.rows)} rows (narrow the range or the groups)"
        print(f"{shown}; the total is the whole range's", file=sys.stderr)
    if args.json:
        print(as_json(report))
    elif not report.total.calls:
        print(nothing("model calls", "in this range, with these filters"))
    else:
        print("\n".join(usage_rows(report, by)))
        if report.total.unpriced_calls:
            print(f"calls without a price (cost 0): {report.total.unpriced_calls}")
    return 0


def rate(value: float) -> str:
    """A success rate as a percentage: `100 %`, `66.7 %`."""
    return f"{round(value * 100, 1):g} %"


def seconds(duration: duration_pb2.Duration) -> str:
    return span(duration.seconds + duration.nanos / 1e9)


def _reason(value: int) -> str:
    return tasks_pb2.StopReason.Name(value).removeprefix("STOP_REASON_").lower()  # type: ignore[arg-type]


def task_lines(stats: usage_pb2.GetStatsResponse) -> list[str]:
    """The range's tasks in four lines: counts, stop reasons, percentiles, spend."""
    t = stats.tasks
    reasons = ", ".join(f"{_reason(r.stop_reason)} {r.tasks}" for r in t.stop_reasons)
    return [
        f"tasks {t.tasks}: {t.completed} completed, {t.failed} failed, {t.cancelled} "
        f"cancelled; success rate {rate(t.success_rate)}",
        f"stop reasons: {reasons or '-'}",
        f"duration p50 {seconds(t.p50_duration)}, p95 {seconds(t.p95_duration)}; "
        f"model calls p50 {t.p50_iterations:g}, p95 {t.p95_iterations:g}",
        f"tokens {t.total_tokens}, cost {money(t.cost_micros, stats.currency)}",
    ]


def _agent_row(a: usage_pb2.TaskStats, currency: str) -> tuple[str, ...]:
    percentiles = (seconds(a.p50_duration), seconds(a.p95_duration))
    calls = (f"{a.p50_iterations:g}", f"{a.p95_iterations:g}")
    spent = (str(a.total_tokens), money(a.cost_micros, currency))
    return (
        a.agent or "(default)",
        str(a.tasks),
        rate(a.success_rate),
        *percentiles,
        *calls,
        *spent,
    )


def _tool_row(t: usage_pb2.ToolStats) -> tuple[str, ...]:
    percentiles = (seconds(t.p50_latency), seconds(t.p95_latency))
    return (t.tool, str(t.calls), str(t.failed), rate(t.success_rate), *percentiles)


def _provider_row(p: usage_pb2.ProviderStats, currency: str) -> tuple[str, ...]:
    percentiles = (seconds(p.p50_latency), seconds(p.p95_latency))
    spent = (str(p.total_tokens), money(p.cost_micros, currency))
    counts = (str(p.calls), str(p.failed_calls), rate(p.success_rate))
    return (p.provider or "(default)", *counts, *percentiles, *spent)


_TIMES = ("p50 time", "p95 time")
_AGENTS = ("agent", "tasks", "success", *_TIMES, "p50 calls", "p95 calls", "tokens", "cost")
_TOOLS = ("tool", "calls", "failed", "success", *_TIMES)
_PROVIDERS = ("provider", "calls", "failed", "success", *_TIMES, "tokens", "cost")


def stats_tables(stats: usage_pb2.GetStatsResponse) -> list[str]:
    """The tables by agent, by tool and by provider (or a line saying there is none),
    each after an empty line."""
    cur = stats.currency
    tables = (
        (_AGENTS, [_agent_row(a, cur) for a in stats.agents], "tasks"),
        (_TOOLS, [_tool_row(t) for t in stats.tools], "tool calls"),
        (_PROVIDERS, [_provider_row(p, cur) for p in stats.providers], "model calls"),
    )
    lines: list[str] = []
    for header, rows, empty in tables:
        found: list[Sequence[str]] = [header, *rows]
        lines.append("")
        lines.extend(columns(found, range(1, len(header))) if rows else [nothing(empty)])
    return lines


async def run_stats(client: AgentClient, args: argparse.Namespace) -> int:
    since, until = time_range(args)
    stats = await client.get_stats(start=since, end=until, agent=args.agent)
    if args.json:
        print(as_json(stats))
        return 0
    print("\n".join([*task_lines(stats), *stats_tables(stats)]))
    if stats.sampled:
        print("\n(the range held more than the server reads at once: percentiles of the latest)")
    return 0
