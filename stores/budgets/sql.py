"""Budget definitions in SQL (SQLite or PostgreSQL), one row per budget.

A budget is unique per tenant, scope, subject, unit and window (`uq_budgets_kind`): of
two creates of the same kind, on this replica or another, the database lets one in and
the other fails on the constraint; that one then looks up the budget in its way and
names it in BudgetExistsError.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import sqlalchemy.exc
from sqlalchemy import delete, false, or_, select, update

from core.errors import BudgetExistsError, BudgetNotFoundError
from records.paging import KeyCursor, Page, id_after, id_cursor
from records.usage.budgets import Budget, BudgetScope, BudgetUnit, BudgetWindow
from stores.sql.database import Database
from stores.sql.schema import budgets
from stores.sql.times import aware

_T = budgets.c

CREATE_ATTEMPTS = 3
"""Inserts a create tries while the row in its way is gone by the time it looks (deleted
meanwhile)."""


def _budget(row: Any) -> Budget:
    return Budget(
        budget_id=row.budget_id,
        tenant=row.tenant,
        scope=BudgetScope(row.scope),
        subject=row.subject,
        unit=BudgetUnit(row.unit),
        window=BudgetWindow(row.window),
        limit=row.limit_amount,
        soft_limit=row.soft_limit,
        created_by=row.created_by,
        created_at=aware(row.created_at),
    )


class SqlBudgetStore:
    """BudgetStore on a database (owned by the caller); writes go through its writer.
    `create` fills in `created_at` when it is None."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def _rows(self, query: Any) -> Sequence[Any]:
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).all()

    async def create(self, budget: Budget) -> Budget:
        if budget.created_at is None:
            budget = replace(budget, created_at=datetime.now(UTC))
        row = {
            "budget_id": budget.budget_id,
            "tenant": budget.tenant,
            "scope": budget.scope.value,
            "subject": budget.subject,
            "unit": budget.unit.value,
            "window": budget.window.value,
            "limit_amount": budget.limit,
            "soft_limit": budget.soft_limit,
            "created_by": budget.created_by,
            "created_at": budget.created_at,
        }
        for _ in range(CREATE_ATTEMPTS):
            try:
                await self._writer.insert(budgets, row)
            except sqlalchemy.exc.IntegrityError:
                in_the_way = await self._in_the_way(budget)
                if in_the_way is not None:
                    raise BudgetExistsError(in_the_way) from None
                continue  # deleted since: try again
            return budget
        raise RuntimeError(f"could not create budget {budget.budget_id!r} (kept racing)")

    async def _in_the_way(self, budget: Budget) -> str | None:
        """The id of the budget of `budget`'s kind, or of its id, if there is one."""
        query = select(_T.budget_id).where(
            or_(
                (_T.tenant == budget.tenant)
                & (_T.scope == budget.scope.value)
                & (_T.subject == budget.subject)
                & (_T.unit == budget.unit.value)
                & (_T.window == budget.window.value),
                _T.budget_id == budget.budget_id,
            )
        )
        found: list[str] = sorted(row.budget_id for row in await self._rows(query))
        for budget_id in found:
            if budget_id != budget.budget_id:
                return budget_id  # one of its kind
        return found[0] if found else None

    async def get(self, tenant: str, budget_id: str) -> Budget:
        query = select(budgets).where(_T.tenant == tenant, _T.budget_id == budget_id)
        rows = await self._rows(query)
        if not rows:
            raise BudgetNotFoundError(budget_id)
        return _budget(rows[0])

    async def update(self, tenant: str, budget_id: str, limit: int, soft_limit: int) -> Budget:
        statement = (
            update(budgets)
            .where(_T.tenant == tenant, _T.budget_id == budget_id)
            .values(limit_amount=limit, soft_limit=soft_limit)
        )
        if await self._writer.execute(statement) == 0:
            raise BudgetNotFoundError(budget_id)
        return await self.get(tenant, budget_id)

    async def delete(self, tenant: str, budget_id: str) -> Budget:
        budget = await self.get(tenant, budget_id)
        statement = delete(budgets).where(_T.tenant == tenant, _T.budget_id == budget_id)
        if await self._writer.execute(statement) == 0:  # another delete came first
            raise BudgetNotFoundError(budget_id)
        return budget

    async def list(
        self, tenant: str, limit: int, after: KeyCursor | None
    ) -> Page[Budget, KeyCursor]:
        query = (
            select(budgets)
            .where(_T.tenant == tenant, _T.budget_id > id_after(after))
            .order_by(_T.budget_id)
            .limit(limit + 1)
        )
        found = [_budget(row) for row in await self._rows(query)]
        return Page.cut(found, limit, lambda b: id_cursor(b.budget_id))

    async def applicable(
        self, tenant: str, user: str, agents: Sequence[str]
    ) -> builtins.list[Budget]:
        named = sorted({agent for agent in agents if agent})
        query = (
            select(budgets)
            .where(
                _T.tenant == tenant,
                or_(
                    _T.scope == BudgetScope.TENANT.value,
                    (_T.scope == BudgetScope.USER.value) & (_T.subject == user)
                    if user
                    else false(),
                    (_T.scope == BudgetScope.AGENT.value) & _T.subject.in_(named)
                    if named
                    else false(),
                ),
            )
            .order_by(_T.budget_id)
        )
        return [_budget(row) for row in await self._rows(query)]
