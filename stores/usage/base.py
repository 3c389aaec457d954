"""Where the usage ledger is kept: one row per model call, written once and read for
usage reports (GetUsage), statistics (GetStats) and the settlement of budgets.

Contract (tests/contract/test_usage_ledger.py runs it on memory, SQLite and PostgreSQL):
- `record` keeps one call (a repeated `call_id` is kept once); on SQL it goes through the
  database's one writer (group commit) and returns once committed.
- `report` groups a tenant's calls of [start, end) by the query's groups, ordered by the
  groups' values (by code point), one page (`limit` rows after `offset`), with the whole
  range's total. No groups: one row, the tenant's, even when it made no calls.
- `spent` is what the calls matching a budget's scope spent in [start, end): the figure a
  budget's counter starts from when the live counter is gone (a Redis restart).
- `sweep` (retention) deletes calls older than `before`, at most `limit` per call.
- Nothing of another tenant is ever read or counted.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from records.usage.budgets import BudgetScope, BudgetUnit
from records.usage.ledger import ModelCall, UsageQuery, UsageReport
from records.usage.stats import Stats, StatsQuery


def agent_path(agents: tuple[str, ...]) -> str:
    """A call's `agents` as one string, top first, each between slashes: `/lead/researcher/`;
    `//` for the default agent's own task. A budget of agent X counts the calls whose path
    holds `/X/` (X's own and its children's, never those of an agent whose id merely
    contains X's)."""
    return "/" + "/".join(agents) + "/"


class UsageLedger(Protocol):
    async def record(self, call: ModelCall) -> None: ...

    async def report(self, query: UsageQuery) -> UsageReport: ...

    async def spent(
        self,
        tenant: str,
        scope: BudgetScope,
        subject: str,
        unit: BudgetUnit,
        start: datetime | None,
        end: datetime | None,
    ) -> int:
        """Tokens (prompt + completion) or micro-units spent by the tenant's calls in
        [start, end) (None: unbounded) whose user (USER) or agent (AGENT: the task's
        agent or an agent above it in its tree) is `subject`."""
        ...

    async def sweep(self, before: datetime, limit: int) -> int: ...


class StatsReader(Protocol):
    """Statistics of a tenant over a range: its tasks (task history), tool calls (the tool
    call audit) and model calls (the ledger), read from SQL (`stores.usage.stats_sql`);
    percentiles over at most `max_rows` of each kind (the latest), counts over all."""

    async def stats(self, query: StatsQuery) -> Stats: ...
