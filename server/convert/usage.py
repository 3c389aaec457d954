"""Conversion of budgets, usage reports and statistics between protobuf and
`records.usage`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from google.protobuf import timestamp_pb2

from agentd.v1 import usage_pb2
from core.errors import FieldViolation, InvalidArgumentError
from records.agents.definition import AGENT_ID
from records.tasks import StopReason
from records.usage.budgets import Budget, BudgetScope, BudgetUnit, BudgetWindow, Counter
from records.usage.ledger import UsageGroup, UsageQuery, UsageTotals
from records.usage.stats import ProviderStats, Stats, StatsQuery, TaskStats, ToolStats
from server.convert.tasks import (
    stop_reason_to_proto,
    timestamp_from_proto,
    to_duration,
    to_timestamp,
)

MAX_AMOUNT = 10**15
"""The largest limit a budget takes (tokens, or micro-units: a billion of a currency)."""
MAX_SUBJECT = 256
MAX_FILTER = 256
MAX_RANGE = timedelta(days=400)
"""The longest range GetUsage and GetStats read."""

_SCOPES = {
    usage_pb2.BUDGET_SCOPE_TENANT: BudgetScope.TENANT,
    usage_pb2.BUDGET_SCOPE_USER: BudgetScope.USER,
    usage_pb2.BUDGET_SCOPE_AGENT: BudgetScope.AGENT,
}
_UNITS = {
    usage_pb2.BUDGET_UNIT_TOKENS: BudgetUnit.TOKENS,
    usage_pb2.BUDGET_UNIT_MONEY: BudgetUnit.MONEY,
}
_WINDOWS = {
    usage_pb2.BUDGET_WINDOW_DAY: BudgetWindow.DAY,
    usage_pb2.BUDGET_WINDOW_MONTH: BudgetWindow.MONTH,
    usage_pb2.BUDGET_WINDOW_NONE: BudgetWindow.NONE,
}
_GROUPS = {
    usage_pb2.USAGE_GROUP_TENANT: UsageGroup.TENANT,
    usage_pb2.USAGE_GROUP_USER: UsageGroup.USER,
    usage_pb2.USAGE_GROUP_AGENT: UsageGroup.AGENT,
    usage_pb2.USAGE_GROUP_MODEL: UsageGroup.MODEL,
    usage_pb2.USAGE_GROUP_PROVIDER: UsageGroup.PROVIDER,
    usage_pb2.USAGE_GROUP_DAY: UsageGroup.DAY,
}


def _amounts(limit: int, soft: int, field: str, violations: list[FieldViolation]) -> None:
    for name, value in (("limit", limit), ("soft_limit", soft)):
        if not 0 <= value <= MAX_AMOUNT:
            violations.append(FieldViolation(f"{field}{name}", f"must be 0 to {MAX_AMOUNT:,}"))
    if limit == 0 and soft == 0:
        violations.append(FieldViolation(f"{field}limit", "a limit or a soft limit is required"))
    if limit and soft and soft >= limit:
        violations.append(FieldViolation(f"{field}soft_limit", "must be below `limit`"))


def budget_from_proto(message: usage_pb2.Budget) -> Budget:
    """A draft budget (the server sets its id, tenant, author and time); every problem is
    reported as a field violation."""
    violations: list[FieldViolation] = []
    scope = _SCOPES.get(message.scope)
    unit = _UNITS.get(message.unit)
    window = _WINDOWS.get(message.window)
    if scope is None:
        violations.append(FieldViolation("budget.scope", "is required (tenant, user or agent)"))
    if unit is None:
        violations.append(FieldViolation("budget.unit", "is required (tokens or money)"))
    if window is None:
        violations.append(FieldViolation("budget.window", "is required (day, month or none)"))
    subject = message.subject
    if scope is BudgetScope.TENANT and subject:
        violations.append(FieldViolation("budget.subject", "must be empty for a tenant budget"))
    if scope is BudgetScope.USER and not 1 <= len(subject) <= MAX_SUBJECT:
        violations.append(FieldViolation("budget.subject", "the user's principal id is required"))
    if scope is BudgetScope.AGENT and not AGENT_ID.fullmatch(subject):
        violations.append(FieldViolation("budget.subject", "an agent id is required"))
    _amounts(message.limit, message.soft_limit, "budget.", violations)
    if violations or scope is None or unit is None or window is None:
        raise InvalidArgumentError(violations)
    return Budget("", "", scope, subject, unit, window, message.limit, message.soft_limit)


def limits_from_proto(limit: int, soft_limit: int) -> tuple[int, int]:
    violations: list[FieldViolation] = []
    _amounts(limit, soft_limit, "", violations)
    if violations:
        raise InvalidArgumentError(violations)
    return limit, soft_limit


def budget_to_proto(
    budget: Budget, counter: Counter, currency: str, now: datetime
) -> usage_pb2.Budget:
    start = budget.window.start(now)
    message = usage_pb2.Budget(
        budget_id=budget.budget_id,
        scope=next(k for k, v in _SCOPES.items() if v is budget.scope),
        subject=budget.subject,
        unit=next(k for k, v in _UNITS.items() if v is budget.unit),
        window=next(k for k, v in _WINDOWS.items() if v is budget.window),
        limit=budget.limit,
        soft_limit=budget.soft_limit,
        created_by=budget.created_by,
        spent=counter.spent,
        reserved=counter.reserved,
        currency=currency if budget.unit is BudgetUnit.MONEY else "",
    )
    if budget.created_at is not None:
        message.created_at.CopyFrom(to_timestamp(budget.created_at))
    if start is not None:
        message.window_start.CopyFrom(to_timestamp(start))
    return message


def _range(
    start: timestamp_pb2.Timestamp | None, end: timestamp_pb2.Timestamp | None, default: timedelta
) -> tuple[datetime, datetime]:
    until = timestamp_from_proto(end, "end_time") if end is not None else datetime.now(UTC)
    since = timestamp_from_proto(start, "start_time") if start is not None else until - default
    if since >= until:
        raise InvalidArgumentError([FieldViolation("start_time", "must be before end_time")])
    if until - since > MAX_RANGE:
        raise InvalidArgumentError(
            [FieldViolation("start_time", f"a range of at most {MAX_RANGE.days} days")]
        )
    return since, until


def usage_query(
    request: usage_pb2.GetUsageRequest, tenant: str, limit: int, offset: int
) -> UsageQuery:
    since, until = _range(
        request.start_time if request.HasField("start_time") else None,
        request.end_time if request.HasField("end_time") else None,
        timedelta(days=30),
    )
    groups: list[UsageGroup] = []
    for index, value in enumerate(request.group_by):
        group = _GROUPS.get(value)
        if group is None:
            raise InvalidArgumentError(
                [FieldViolation(f"group_by[{index}]", "is not a usage group")]
            )
        if group not in groups:
            groups.append(group)
    for name in ("user", "agent", "model", "provider"):
        if len(getattr(request, name)) > MAX_FILTER:
            raise InvalidArgumentError(
                [FieldViolation(name, f"is longer than {MAX_FILTER} characters")]
            )
    return UsageQuery(
        tenant,
        since,
        until,
        tuple(groups),
        request.user,
        request.agent,
        request.model,
        request.provider,
        limit,
        offset,
    )


def usage_row_to_proto(row: UsageTotals) -> usage_pb2.UsageRow:
    values = {group.value: value for group, value in row.values.items()}
    return usage_pb2.UsageRow(
        **values,
        calls=row.calls,
        failed_calls=row.failed_calls,
        prompt_tokens=row.prompt_tokens,
        cached_prompt_tokens=row.cached_prompt_tokens,
        completion_tokens=row.completion_tokens,
        reasoning_tokens=row.reasoning_tokens,
        total_tokens=row.total_tokens,
        cost_micros=row.cost_micros,
        unpriced_calls=row.unpriced_calls,
    )


def stats_query(request: usage_pb2.GetStatsRequest, tenant: str, max_rows: int) -> StatsQuery:
    since, until = _range(
        request.start_time if request.HasField("start_time") else None,
        request.end_time if request.HasField("end_time") else None,
        timedelta(days=1),
    )
    if request.agent and not AGENT_ID.fullmatch(request.agent):
        raise InvalidArgumentError([FieldViolation("agent", "is not an agent id")])
    return StatsQuery(tenant, since, until, request.agent, max_rows)


def _task_stats(stats: TaskStats) -> usage_pb2.TaskStats:
    reasons = []
    for value, count in sorted(stats.stop_reasons.items()):
        try:
            reason: StopReason | None = StopReason(value)
        except ValueError:
            reason = None
        reasons.append(
            usage_pb2.StopReasonCount(stop_reason=stop_reason_to_proto(reason), tasks=count)
        )
    return usage_pb2.TaskStats(
        agent=stats.agent,
        tasks=stats.tasks,
        completed=stats.completed,
        failed=stats.failed,
        cancelled=stats.cancelled,
        success_rate=stats.success_rate,
        stop_reasons=reasons,
        p50_duration=to_duration(stats.p50_seconds),
        p95_duration=to_duration(stats.p95_seconds),
        p50_iterations=stats.p50_iterations,
        p95_iterations=stats.p95_iterations,
        total_tokens=stats.total_tokens,
        cost_micros=stats.cost_micros,
    )


def _tool_stats(stats: ToolStats) -> usage_pb2.ToolStats:
    return usage_pb2.ToolStats(
        tool=stats.tool,
        calls=stats.calls,
        failed=stats.failed,
        success_rate=stats.success_rate,
        p50_latency=to_duration(stats.p50_seconds),
        p95_latency=to_duration(stats.p95_seconds),
    )


def _provider_stats(stats: ProviderStats) -> usage_pb2.ProviderStats:
    return usage_pb2.ProviderStats(
        provider=stats.provider,
        calls=stats.calls,
        failed_calls=stats.failed_calls,
        success_rate=stats.success_rate,
        p50_latency=to_duration(stats.p50_seconds),
        p95_latency=to_duration(stats.p95_seconds),
        total_tokens=stats.total_tokens,
        cost_micros=stats.cost_micros,
    )


def stats_to_proto(stats: Stats, currency: str) -> usage_pb2.GetStatsResponse:
    return usage_pb2.GetStatsResponse(
        tasks=_task_stats(stats.tasks),
        agents=[_task_stats(a) for a in stats.agents],
        tools=[_tool_stats(t) for t in stats.tools],
        providers=[_provider_stats(p) for p in stats.providers],
        currency=currency,
        sampled=stats.sampled,
    )
