"""Where budgets are kept: their definitions (`BudgetStore`, durable, on SQL) and the
counters of their windows (`BudgetMeter`, live: in Redis so that every replica draws on
the same counter, else in this process).

Definitions: one budget per tenant, scope, subject, unit and window (`create` raises
BudgetExistsError for a second); `update`, `delete` and `get` raise BudgetNotFoundError
for an id the tenant does not have; `list` pages by id (ids sort by creation: oldest
first); `applicable` returns the tenant's budgets a task draws on: the tenant's, its
user's, and those of each agent in `agents` (the task's own and those above it in its
tree).

Counters (one per budget and window, `Budget.counter`):
- `reserve(reservation, charges, ttl)` is all or nothing across its charges, atomic
  against every other reserve and settle on the same counters (a Lua script in Redis, a
  lock in this process): each charge fits when spent + reserved + amount stays within
  its hard limit, then within its soft limit; the first that does not is returned as a
  `Refusal` (hard limits are checked on every charge before any soft limit) and nothing
  is reserved. A reservation lapses after `ttl` seconds (its process died mid-call).
- `settle(reservation, actual)` releases the reservation and adds what the call really
  spent, counter by counter (a lapsed reservation still adds what was spent).
- `seed(counter, spent, ttl)` sets a counter that does not exist yet (from the ledger); it
  is the only way a counter is made: `reserve` answers `Refusal(missing=True)` for a
  charge whose counter does not exist (nothing reserved), and `settle` leaves a missing
  counter missing (the ledger, which seeds it again, has the call).
- `read(counters)` returns each counter's spent and reserved (zero for unknown ones).
- `exists(counter)` says whether a counter is known (to seed it first when not).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from records.paging import KeyCursor, Page
from records.usage.budgets import Budget, BudgetScope, Charge, Counter, Refusal


def applies(budget: Budget, user: str, agents: Sequence[str]) -> bool:
    """Whether a task of `user` run by `agents` draws on `budget` (of its tenant): a
    tenant budget always, a user's when it is that user's, an agent's when it is one of
    `agents` ("" entries name no agent)."""
    if budget.scope is BudgetScope.TENANT:
        return True
    if budget.scope is BudgetScope.USER:
        return bool(user) and budget.subject == user
    return bool(budget.subject) and budget.subject in agents


class BudgetStore(Protocol):
    async def create(self, budget: Budget) -> Budget: ...

    async def get(self, tenant: str, budget_id: str) -> Budget: ...

    async def update(self, tenant: str, budget_id: str, limit: int, soft_limit: int) -> Budget: ...

    async def delete(self, tenant: str, budget_id: str) -> Budget: ...

    async def list(
        self, tenant: str, limit: int, after: KeyCursor | None
    ) -> Page[Budget, KeyCursor]: ...

    async def applicable(
        self, tenant: str, user: str, agents: Sequence[str]
    ) -> Sequence[Budget]: ...


class BudgetMeter(Protocol):
    async def reserve(
        self, reservation: str, charges: Sequence[Charge], ttl_seconds: float
    ) -> Refusal | None: ...

    async def settle(self, reservation: str, actual: Mapping[str, int]) -> None: ...

    async def seed(self, counter: str, spent: int, ttl_seconds: float | None) -> None: ...

    async def exists(self, counter: str) -> bool: ...

    async def read(self, counters: Sequence[str]) -> dict[str, Counter]: ...
