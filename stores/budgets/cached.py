"""Budget definitions read through a cache, for the question asked before every model
call: which budgets does this task draw on (`applicable`)?"""

from __future__ import annotations

import asyncio
import builtins
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from records.paging import KeyCursor, Page
from records.usage.budgets import Budget, BudgetScope
from stores.budgets.base import BudgetStore

PAGE_SIZE = 500
"""Budgets read per page when a tenant's list is read whole."""


@dataclass(slots=True)
class _Tenant:
    """A tenant's budgets as read at one time, by whose they are."""

    fresh_until: float
    tenant_wide: list[Budget] = field(default_factory=list)
    by_user: dict[str, list[Budget]] = field(default_factory=dict)
    by_agent: dict[str, list[Budget]] = field(default_factory=dict)


class CachedBudgetStore:
    """A BudgetStore over `inner` that answers `applicable` from a per-tenant copy of the
    tenant's whole list of budgets, read again once it is `refresh_seconds` old (by
    `clock`). A tenant without budgets is kept too, so its tasks cost no read either.

    Changes made through this store drop the tenant's copy at once, here; those made
    through another replica's are seen here within `refresh_seconds`. Concurrent
    `applicable` calls of a tenant whose copy is missing or old wait for one read. Every
    other method goes to `inner` as it is."""

    def __init__(
        self,
        inner: BudgetStore,
        refresh_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._inner = inner
        self._refresh = refresh_seconds
        self._clock = clock
        self._tenants: dict[str, _Tenant] = {}
        self._changes: dict[str, int] = {}
        """Per tenant, how many times its copy was dropped: a read that began before a
        drop does not keep what it read."""
        self._reads: dict[str, asyncio.Lock] = {}

    async def applicable(
        self, tenant: str, user: str, agents: Sequence[str]
    ) -> builtins.list[Budget]:
        cached = self._fresh(tenant)
        if cached is None:
            cached = await self._read(tenant)
        found = list(cached.tenant_wide)
        if user:
            found.extend(cached.by_user.get(user, ()))
        for agent in {agent for agent in agents if agent}:
            found.extend(cached.by_agent.get(agent, ()))
        return sorted(found, key=lambda b: b.budget_id)

    def _fresh(self, tenant: str) -> _Tenant | None:
        cached = self._tenants.get(tenant)
        return cached if cached is not None and self._clock() < cached.fresh_until else None

    async def _read(self, tenant: str) -> _Tenant:
        async with self._reads.setdefault(tenant, asyncio.Lock()):
            cached = self._fresh(tenant)  # read meanwhile by the call before
            if cached is not None:
                return cached
            changes = self._changes.get(tenant, 0)
            cached = _Tenant(self._clock() + self._refresh)
            after: KeyCursor | None = None
            while True:
                page = await self._inner.list(tenant, PAGE_SIZE, after)
                for budget in page.items:
                    _file(cached, budget)
                if page.next is None:
                    break
                after = page.next
            if self._changes.get(tenant, 0) == changes:
                self._tenants[tenant] = cached
            return cached

    def _drop(self, tenant: str) -> None:
        self._tenants.pop(tenant, None)
        self._changes[tenant] = self._changes.get(tenant, 0) + 1

    async def create(self, budget: Budget) -> Budget:
        try:
            return await self._inner.create(budget)
        finally:
            self._drop(budget.tenant)

    async def update(self, tenant: str, budget_id: str, limit: int, soft_limit: int) -> Budget:
        try:
            return await self._inner.update(tenant, budget_id, limit, soft_limit)
        finally:
            self._drop(tenant)

    async def delete(self, tenant: str, budget_id: str) -> Budget:
        try:
            return await self._inner.delete(tenant, budget_id)
        finally:
            self._drop(tenant)

    async def get(self, tenant: str, budget_id: str) -> Budget:
        return await self._inner.get(tenant, budget_id)

    async def list(
        self, tenant: str, limit: int, after: KeyCursor | None
    ) -> Page[Budget, KeyCursor]:
        return await self._inner.list(tenant, limit, after)


def _file(cached: _Tenant, budget: Budget) -> None:
    if budget.scope is BudgetScope.TENANT:
        cached.tenant_wide.append(budget)
    elif budget.scope is BudgetScope.USER:
        cached.by_user.setdefault(budget.subject, []).append(budget)
    else:
        cached.by_agent.setdefault(budget.subject, []).append(budget)
