"""Budgets, usage and statistics of the caller's tenant: what the RPC handlers call.

Budgets are created, changed and deleted by their admins (AGENTD_BUDGET_ADMIN_ROLES) and
listed, with what their current windows spent, by auditors; usage reports and statistics
are read from the usage ledger (and the task history and tool call audit) by auditors.
A caller sees its own tenant only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from agent.spending.budgets import Budgets
from core.identity import Principal
from core.roles import Action, RoleTable
from records.paging import KeyCursor, Page
from records.usage.budgets import Budget, Counter, new_budget_id
from records.usage.ledger import UsageQuery, UsageReport
from records.usage.stats import Stats, StatsQuery
from stores.usage.base import StatsReader, UsageLedger


@dataclass(frozen=True, slots=True)
class BudgetStanding:
    """A budget and what its current window spent and holds reserved."""

    budget: Budget
    counter: Counter


class UsageService:
    def __init__(
        self,
        budgets: Budgets,
        ledger: UsageLedger,
        stats: StatsReader,
        roles: RoleTable,
        currency: str,
        max_stats_rows: int,
    ) -> None:
        self._budgets = budgets
        self._ledger = ledger
        self._stats = stats
        self._roles = roles
        self.currency = currency
        self.max_stats_rows = max_stats_rows

    async def create_budget(self, principal: Principal, draft: Budget) -> BudgetStanding:
        self._roles.require(principal.roles, Action.MANAGE_BUDGETS)
        budget = replace(
            draft,
            budget_id=new_budget_id(),
            tenant=principal.tenant,
            created_by=principal.id,
            created_at=datetime.now(UTC),
        )
        created = await self._budgets.store.create(budget)
        return (await self._standing([created]))[0]

    async def update_budget(
        self, principal: Principal, budget_id: str, limit: int, soft_limit: int
    ) -> BudgetStanding:
        self._roles.require(principal.roles, Action.MANAGE_BUDGETS)
        updated = await self._budgets.store.update(principal.tenant, budget_id, limit, soft_limit)
        return (await self._standing([updated]))[0]

    async def delete_budget(self, principal: Principal, budget_id: str) -> BudgetStanding:
        self._roles.require(principal.roles, Action.MANAGE_BUDGETS)
        budget = await self._budgets.store.get(principal.tenant, budget_id)
        standing = (await self._standing([budget]))[0]
        await self._budgets.store.delete(principal.tenant, budget_id)
        return standing

    async def list_budgets(
        self, principal: Principal, limit: int, after: KeyCursor | None
    ) -> Page[BudgetStanding, KeyCursor]:
        self._roles.require(principal.roles, Action.READ_USAGE)
        page = await self._budgets.store.list(principal.tenant, limit, after)
        return Page(tuple(await self._standing(page.items)), page.next)

    async def usage(self, principal: Principal, query: UsageQuery) -> UsageReport:
        """The ledger's report for `query` (whose tenant is the caller's)."""
        self._roles.require(principal.roles, Action.READ_USAGE)
        return await self._ledger.report(replace(query, tenant=principal.tenant))

    async def stats(self, principal: Principal, query: StatsQuery) -> Stats:
        self._roles.require(principal.roles, Action.READ_USAGE)
        return await self._stats.stats(replace(query, tenant=principal.tenant))

    async def _standing(self, budgets: Sequence[Budget]) -> list[BudgetStanding]:
        counters = await self._budgets.standing(budgets, datetime.now(UTC))
        return [BudgetStanding(b, c) for b, c in zip(budgets, counters, strict=True)]
