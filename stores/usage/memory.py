"""The usage ledger in this process (one server with the in-process stores, and tests)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from records.usage.budgets import BudgetScope, BudgetUnit
from records.usage.ledger import CallOutcome, ModelCall, UsageGroup, UsageQuery, UsageReport
from records.usage.ledger import UsageTotals as Totals
from stores.usage.base import agent_path


def group_value(call: ModelCall, group: UsageGroup) -> str:
    """The value a call has in `group` (DAY: the UTC date of `at`, YYYY-MM-DD)."""
    if group is UsageGroup.DAY:
        return call.at.astimezone(UTC).strftime("%Y-%m-%d")
    return {
        UsageGroup.TENANT: call.tenant,
        UsageGroup.USER: call.user,
        UsageGroup.AGENT: call.agent,
        UsageGroup.MODEL: call.model,
        UsageGroup.PROVIDER: call.provider,
    }[group]


def totals(values: dict[UsageGroup, str], calls: Iterable[ModelCall]) -> Totals:
    """What `calls` add up to, as the group of `values`."""
    chosen = list(calls)
    return Totals(
        values=values,
        calls=len(chosen),
        failed_calls=sum(c.outcome is CallOutcome.FAILED for c in chosen),
        prompt_tokens=sum(c.prompt_tokens for c in chosen),
        cached_prompt_tokens=sum(c.cached_prompt_tokens for c in chosen),
        completion_tokens=sum(c.completion_tokens for c in chosen),
        reasoning_tokens=sum(c.reasoning_tokens for c in chosen),
        cost_micros=sum(c.cost_micros for c in chosen),
        unpriced_calls=sum(not c.priced and c.outcome is CallOutcome.OK for c in chosen),
    )


class InMemoryUsageLedger:
    """UsageLedger in a dict keyed by call id; every method runs without awaiting (atomic).
    Reports and sums scan every call kept: for one process and tests, not for a server's
    months of calls."""

    name = "usage ledger rows"

    def __init__(self) -> None:
        self._calls: dict[str, ModelCall] = {}

    async def record(self, call: ModelCall) -> None:
        self._calls.setdefault(call.call_id, call)

    async def report(self, query: UsageQuery) -> UsageReport:
        groups = tuple(dict.fromkeys(query.group_by))
        chosen = [c for c in self._calls.values() if _in_query(c, query)]
        # No groups: one row for the tenant, whether it made calls or not.
        by_key: dict[tuple[str, ...], list[ModelCall]] = {} if groups else {(): chosen}
        for call in chosen if groups else ():
            by_key.setdefault(tuple(group_value(call, g) for g in groups), []).append(call)
        keys = sorted(by_key)
        page = keys[query.offset : query.offset + query.limit]
        rows = tuple(totals(dict(zip(groups, key, strict=True)), by_key[key]) for key in page)
        return UsageReport(
            rows=rows, total=totals({}, chosen), more=len(keys) > query.offset + query.limit
        )

    async def spent(
        self,
        tenant: str,
        scope: BudgetScope,
        subject: str,
        unit: BudgetUnit,
        start: datetime | None,
        end: datetime | None,
    ) -> int:
        amount = 0
        for call in self._calls.values():
            if (
                call.tenant != tenant
                or (start is not None and call.at < start)
                or (end is not None and call.at >= end)
                or (scope is BudgetScope.USER and call.user != subject)
                or (scope is BudgetScope.AGENT and f"/{subject}/" not in agent_path(call.agents))
            ):
                continue
            amount += call.total_tokens if unit is BudgetUnit.TOKENS else call.cost_micros
        return amount

    async def sweep(self, before: datetime, limit: int) -> int:
        expired = sorted((c for c in self._calls.values() if c.at < before), key=lambda c: c.at)
        for call in expired[:limit]:
            del self._calls[call.call_id]
        return len(expired[:limit])


def _in_query(call: ModelCall, query: UsageQuery) -> bool:
    return (
        call.tenant == query.tenant
        and query.start <= call.at < query.end
        and (not query.user or call.user == query.user)
        and (not query.agent or call.agent == query.agent)
        and (not query.model or call.model == query.model)
        and (not query.provider or call.provider == query.provider)
    )
