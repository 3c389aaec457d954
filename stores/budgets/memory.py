"""Budgets in this process: their definitions (tests, a server without a database) and
their counters (a single replica: every reserve and settle happens here)."""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from core.errors import BudgetExistsError, BudgetNotFoundError
from records.paging import KeyCursor, Page, id_after, id_cursor
from records.usage.budgets import Budget, Charge, Counter, Refusal
from stores.budgets.base import applies


def _kind(budget: Budget) -> tuple[str, str, str, str, str]:
    return (
        budget.tenant,
        budget.scope.value,
        budget.subject,
        budget.unit.value,
        budget.window.value,
    )


class InMemoryBudgetStore:
    """BudgetStore in a dict. `create` fills in `created_at` when it is None."""

    def __init__(self) -> None:
        self._budgets: dict[str, Budget] = {}

    async def create(self, budget: Budget) -> Budget:
        kind = _kind(budget)
        for other in self._budgets.values():
            if _kind(other) == kind:
                raise BudgetExistsError(other.budget_id)
        if budget.budget_id in self._budgets:
            raise BudgetExistsError(budget.budget_id)
        if budget.created_at is None:
            budget = replace(budget, created_at=datetime.now(UTC))
        self._budgets[budget.budget_id] = budget
        return budget

    async def get(self, tenant: str, budget_id: str) -> Budget:
        budget = self._budgets.get(budget_id)
        if budget is None or budget.tenant != tenant:
            raise BudgetNotFoundError(budget_id)
        return budget

    async def update(self, tenant: str, budget_id: str, limit: int, soft_limit: int) -> Budget:
        budget = await self.get(tenant, budget_id)
        budget = self._budgets[budget_id] = replace(budget, limit=limit, soft_limit=soft_limit)
        return budget

    async def delete(self, tenant: str, budget_id: str) -> Budget:
        budget = await self.get(tenant, budget_id)
        del self._budgets[budget_id]
        return budget

    async def list(
        self, tenant: str, limit: int, after: KeyCursor | None
    ) -> Page[Budget, KeyCursor]:
        start = id_after(after)
        found = sorted(
            (b for b in self._budgets.values() if b.tenant == tenant and b.budget_id > start),
            key=lambda b: b.budget_id,
        )
        return Page.cut(found[: limit + 1], limit, lambda b: id_cursor(b.budget_id))

    async def applicable(
        self, tenant: str, user: str, agents: Sequence[str]
    ) -> builtins.list[Budget]:
        return sorted(
            (b for b in self._budgets.values() if b.tenant == tenant and applies(b, user, agents)),
            key=lambda b: b.budget_id,
        )


@dataclass(slots=True)
class _Window:
    """One counter: what was spent, the reservations it holds (id -> amount and when it
    lapses) and when it expires (None: never), on the meter's clock."""

    spent: int = 0
    holds: dict[str, tuple[int, float]] = field(default_factory=dict)
    expires_at: float | None = None

    def lapse(self, now: float) -> None:
        for reservation in [r for r, (_, until) in self.holds.items() if until <= now]:
            del self.holds[reservation]

    @property
    def reserved(self) -> int:
        return sum(amount for amount, _ in self.holds.values())


class InMemoryBudgetMeter:
    """BudgetMeter in this process. Each method runs to its end without awaiting, so under
    asyncio it is atomic against every other call; reservations lapse and counters
    expire by `clock` (monotonic seconds; tests pass their own). As on Redis, only `seed`
    makes a counter: `reserve` answers that one is missing, `settle` leaves it missing;
    and `settle` releases the reservation on the counters it is given only."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._windows: dict[str, _Window] = {}

    def _window(self, counter: str, now: float) -> _Window | None:
        """The live counter (its lapsed reservations dropped), or None."""
        window = self._windows.get(counter)
        if window is not None and window.expires_at is not None and window.expires_at <= now:
            del self._windows[counter]
            window = None
        if window is not None:
            window.lapse(now)
        return window

    async def reserve(
        self, reservation: str, charges: Sequence[Charge], ttl_seconds: float
    ) -> Refusal | None:
        now = self._clock()
        used: dict[str, int] = {}
        windows: dict[str, _Window] = {}
        for index, charge in enumerate(charges):
            window = self._window(charge.counter, now)
            if window is None:
                return Refusal(index, False, 0, missing=True)
            windows[charge.counter] = window
            used[charge.counter] = window.spent + window.reserved
        for soft in (False, True):
            pending: dict[str, int] = {}  # charges before this one on the same counter
            for index, charge in enumerate(charges):
                limit = charge.soft_limit if soft else charge.limit
                taken = used[charge.counter] + pending.get(charge.counter, 0)
                if limit > 0 and taken + charge.amount > limit:
                    return Refusal(index, soft, max(0, limit - taken))
                pending[charge.counter] = pending.get(charge.counter, 0) + charge.amount
        for charge in charges:
            window = windows[charge.counter]
            held, _ = window.holds.get(reservation, (0, 0.0))
            window.holds[reservation] = (held + charge.amount, now + ttl_seconds)
        return None

    async def settle(self, reservation: str, actual: Mapping[str, int]) -> None:
        now = self._clock()
        for counter, amount in actual.items():
            window = self._window(counter, now)
            if window is not None:  # one that is gone stays gone: the ledger has the call
                window.holds.pop(reservation, None)
                window.spent += amount

    async def seed(self, counter: str, spent: int, ttl_seconds: float | None) -> None:
        now = self._clock()
        if self._window(counter, now) is None:
            expires_at = None if ttl_seconds is None else now + ttl_seconds
            self._windows[counter] = _Window(spent, expires_at=expires_at)

    async def exists(self, counter: str) -> bool:
        return self._window(counter, self._clock()) is not None

    async def read(self, counters: Sequence[str]) -> dict[str, Counter]:
        now = self._clock()
        found: dict[str, Counter] = {}
        for counter in counters:
            window = self._window(counter, now)
            found[counter] = Counter(window.spent, window.reserved) if window else Counter()
        return found
