"""The budget store contract (definitions), on memory, SQLite and the machine's
PostgreSQL (two stores over one database stand for two replicas), and the cache over each."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from unittest.mock import patch

import pytest

from core.errors import BudgetExistsError, BudgetNotFoundError
from records.paging import KeyCursor, Page
from records.usage.budgets import Budget, BudgetScope, BudgetUnit, BudgetWindow, new_budget_id
from stores.budgets.base import BudgetStore
from stores.budgets.cached import CachedBudgetStore
from stores.budgets.memory import InMemoryBudgetStore
from stores.budgets.sql import SqlBudgetStore
from stores.sql.database import Database
from tests.contract.conftest import SQL_BACKENDS, migrated_database
from tests.paging import every_page, page_sizes


def budget(
    scope: BudgetScope = BudgetScope.TENANT,
    subject: str = "",
    *,
    tenant: str = "acme",
    unit: BudgetUnit = BudgetUnit.TOKENS,
    window: BudgetWindow = BudgetWindow.DAY,
    limit: int = 50_000,
) -> Budget:
    return Budget(new_budget_id(), tenant, scope, subject, unit, window, limit, 0, "alice")


def by_id(*found: Budget) -> list[Budget]:
    return sorted(found, key=lambda b: b.budget_id)


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def replicas(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[BudgetStore, BudgetStore]]:
    """Two stores over the same budgets (on SQL each with a writer of its own)."""
    if request.param == "memory":
        shared = InMemoryBudgetStore()
        yield shared, shared
        return
    async with migrated_database(request.param, tmp_path) as database:
        other = Database(database.engine)
        try:
            yield SqlBudgetStore(database), SqlBudgetStore(other)
        finally:
            await other.writer.close()


@pytest.fixture
def budgets(replicas: tuple[BudgetStore, BudgetStore]) -> BudgetStore:
    return replicas[0]


async def test_every_field_round_trips(budgets: BudgetStore) -> None:
    wanted = replace(
        budget(BudgetScope.USER, "bob", unit=BudgetUnit.MONEY, window=BudgetWindow.MONTH),
        soft_limit=40_000,
    )
    created = await budgets.create(wanted)
    assert created.created_at is not None
    assert created == replace(wanted, created_at=created.created_at)
    assert await budgets.get("acme", wanted.budget_id) == created


async def test_a_second_budget_of_a_kind_is_refused_naming_the_first(
    budgets: BudgetStore,
) -> None:
    first = await budgets.create(budget(BudgetScope.AGENT, "support"))
    with pytest.raises(BudgetExistsError) as raised:
        await budgets.create(budget(BudgetScope.AGENT, "support"))
    assert raised.value.metadata["budget_id"] == first.budget_id
    with pytest.raises(BudgetExistsError) as raised:  # the same id again
        await budgets.create(replace(first, subject="billing"))
    assert raised.value.metadata["budget_id"] == first.budget_id
    # Any other scope, subject, unit, window or tenant is another kind.
    await budgets.create(budget(BudgetScope.AGENT, "billing"))
    await budgets.create(budget(BudgetScope.USER, "support"))
    await budgets.create(budget(BudgetScope.AGENT, "support", unit=BudgetUnit.MONEY))
    await budgets.create(budget(BudgetScope.AGENT, "support", window=BudgetWindow.NONE))
    await budgets.create(budget(BudgetScope.AGENT, "support", tenant="globex"))
    page = await budgets.list("acme", 10, None)
    assert len(page.items) == 5


async def test_racing_creates_of_a_kind_make_exactly_one(
    replicas: tuple[BudgetStore, BudgetStore],
) -> None:
    attempts = [budget(window=BudgetWindow.MONTH) for _ in range(6)]
    results = await asyncio.gather(
        *(replicas[i % 2].create(b) for i, b in enumerate(attempts)), return_exceptions=True
    )
    made = [r for r in results if isinstance(r, Budget)]
    refused = [r for r in results if isinstance(r, BudgetExistsError)]
    assert len(made) == 1
    assert len(refused) == 5
    assert {r.metadata["budget_id"] for r in refused} == {made[0].budget_id}
    assert (await replicas[1].list("acme", 10, None)).items == (made[0],)


async def test_another_tenants_budget_is_not_found(budgets: BudgetStore) -> None:
    mine = await budgets.create(budget())
    for call in (
        budgets.get("globex", mine.budget_id),
        budgets.update("globex", mine.budget_id, 1, 0),
        budgets.delete("globex", mine.budget_id),
    ):
        with pytest.raises(BudgetNotFoundError) as raised:
            await call
        assert raised.value.metadata["budget_id"] == mine.budget_id
    assert await budgets.get("acme", mine.budget_id) == mine  # untouched
    assert (await budgets.list("globex", 10, None)).items == ()


async def test_update_changes_the_limits_and_delete_returns_the_budget(
    budgets: BudgetStore,
) -> None:
    created = await budgets.create(budget(BudgetScope.USER, "bob"))
    updated = await budgets.update("acme", created.budget_id, 70_000, 60_000)
    assert updated == replace(created, limit=70_000, soft_limit=60_000)
    assert await budgets.get("acme", created.budget_id) == updated
    assert await budgets.delete("acme", created.budget_id) == updated
    for call in (
        budgets.get("acme", created.budget_id),
        budgets.update("acme", created.budget_id, 1, 0),
        budgets.delete("acme", created.budget_id),
    ):
        with pytest.raises(BudgetNotFoundError):
            await call
    # Its kind is free again.
    await budgets.create(budget(BudgetScope.USER, "bob"))


async def test_list_pages_by_id_oldest_first(budgets: BudgetStore) -> None:
    made = []
    for i in range(7):
        made.append(await budgets.create(budget(BudgetScope.AGENT, f"agent-{i}")))
        await asyncio.sleep(0.002)  # ids of one millisecond have no order between them
    await budgets.create(budget(tenant="globex"))
    pages = await every_page(lambda after: budgets.list("acme", 3, after))
    assert [len(page) for page in pages] == page_sizes(7, 3)
    assert [b for page in pages for b in page] == made
    assert [b.budget_id for b in made] == sorted(b.budget_id for b in made)
    assert await every_page(lambda after: budgets.list("initech", 3, after)) == [()]


async def test_applicable_are_the_tenants_the_users_and_the_agents(
    budgets: BudgetStore,
) -> None:
    tenant = await budgets.create(budget())
    tenant_money = await budgets.create(budget(unit=BudgetUnit.MONEY))
    bob = await budgets.create(budget(BudgetScope.USER, "bob"))
    await budgets.create(budget(BudgetScope.USER, "carol"))
    support = await budgets.create(budget(BudgetScope.AGENT, "support"))
    triage = await budgets.create(budget(BudgetScope.AGENT, "triage"))
    await budgets.create(budget(BudgetScope.AGENT, "billing"))
    await budgets.create(budget(tenant="globex"))
    await budgets.create(budget(BudgetScope.USER, "bob", tenant="globex"))

    found = await budgets.applicable("acme", "bob", ["support", "", "triage"])
    assert found == by_id(tenant, tenant_money, bob, support, triage)
    assert await budgets.applicable("acme", "", [""]) == by_id(tenant, tenant_money)
    assert await budgets.applicable("acme", "dave", []) == by_id(tenant, tenant_money)
    assert await budgets.applicable("initech", "bob", ["support"]) == []


class Counted(InMemoryBudgetStore):
    """Budgets in this process that count the pages read of them; while `hold` is not
    set, a page read is held back (not returned) until it is."""

    def __init__(self) -> None:
        super().__init__()
        self.pages = 0
        self.hold: asyncio.Event | None = None

    async def list(
        self, tenant: str, limit: int, after: KeyCursor | None
    ) -> Page[Budget, KeyCursor]:
        self.pages += 1
        page = await super().list(tenant, limit, after)
        if self.hold is not None:
            await self.hold.wait()
        return page


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def counted() -> Counted:
    """The cache's store: in this process, as the cache's rules do not depend on it."""
    return Counted()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def cached(counted: Counted, clock: Clock) -> CachedBudgetStore:
    return CachedBudgetStore(counted, refresh_seconds=30.0, clock=clock)


async def test_the_cache_reads_a_tenant_once_per_refresh(
    counted: Counted, cached: CachedBudgetStore, clock: Clock
) -> None:
    tenant = await counted.create(budget())
    bob = await counted.create(budget(BudgetScope.USER, "bob"))
    assert await cached.applicable("acme", "bob", ["support"]) == by_id(tenant, bob)
    support = await counted.create(budget(BudgetScope.AGENT, "support"))  # another replica
    clock.now += 29.9
    assert await cached.applicable("acme", "bob", ["support"]) == by_id(tenant, bob)
    assert await cached.applicable("acme", "carol", []) == [tenant]
    assert counted.pages == 1
    clock.now += 0.1
    assert await cached.applicable("acme", "bob", ["support"]) == by_id(tenant, bob, support)
    assert counted.pages == 2


async def test_the_cache_keeps_a_tenant_without_budgets(
    counted: Counted, cached: CachedBudgetStore, clock: Clock
) -> None:
    for _ in range(3):
        assert await cached.applicable("initech", "bob", ["support"]) == []
    assert counted.pages == 1
    clock.now += 30.0
    assert await cached.applicable("initech", "bob", ["support"]) == []
    assert counted.pages == 2


async def test_the_cache_reads_a_tenant_with_many_budgets_page_by_page(
    counted: Counted, cached: CachedBudgetStore
) -> None:
    made = [await counted.create(budget(BudgetScope.USER, f"user-{i}")) for i in range(12)]
    with patch("stores.budgets.cached.PAGE_SIZE", 5):
        assert await cached.applicable("acme", "user-11", []) == [made[11]]
    assert counted.pages == 3
    assert await cached.applicable("acme", "user-0", []) == [made[0]]
    assert counted.pages == 3


async def test_changes_through_the_cache_drop_the_tenants_copy_at_once(
    counted: Counted, cached: CachedBudgetStore
) -> None:
    assert await cached.applicable("acme", "bob", []) == []
    assert await cached.applicable("globex", "bob", []) == []
    bob = await cached.create(budget(BudgetScope.USER, "bob"))
    assert await cached.applicable("acme", "bob", []) == [bob]
    raised = await cached.update("acme", bob.budget_id, 10, 5)
    assert await cached.applicable("acme", "bob", []) == [raised]
    assert await cached.delete("acme", bob.budget_id) == raised
    assert await cached.applicable("acme", "bob", []) == []
    assert counted.pages == 2 + 3
    assert await cached.applicable("globex", "bob", []) == []  # another tenant's copy stays
    assert counted.pages == 5
    # A change that fails drops the copy too (it may have raced with one that did not).
    with pytest.raises(BudgetNotFoundError):
        await cached.update("acme", bob.budget_id, 1, 0)
    assert await cached.applicable("acme", "bob", []) == []
    assert counted.pages == 6


async def test_callers_of_a_missing_tenant_wait_for_one_read(
    counted: Counted, cached: CachedBudgetStore
) -> None:
    tenant = await counted.create(budget())
    counted.hold = asyncio.Event()
    calls = [asyncio.ensure_future(cached.applicable("acme", "", [])) for _ in range(5)]
    await asyncio.sleep(0.01)
    counted.hold.set()
    assert await asyncio.gather(*calls) == [[tenant]] * 5
    assert counted.pages == 1


async def test_a_read_begun_before_a_change_is_not_kept(
    counted: Counted, cached: CachedBudgetStore
) -> None:
    counted.hold = asyncio.Event()
    early = asyncio.ensure_future(cached.applicable("acme", "", []))
    await asyncio.sleep(0.01)  # it has read
    created = await cached.create(budget())
    counted.hold.set()
    assert await early == []  # what it read before the change
    assert await cached.applicable("acme", "", []) == [created]
    assert counted.pages == 2


async def test_get_and_list_go_to_the_store(counted: Counted, cached: CachedBudgetStore) -> None:
    made = await cached.create(budget())
    assert await cached.get("acme", made.budget_id) == made
    assert (await cached.list("acme", 10, None)).items == (made,)
    await counted.delete("acme", made.budget_id)
    with pytest.raises(BudgetNotFoundError):
        await cached.get("acme", made.budget_id)
    assert (await cached.list("acme", 10, None)).items == ()
