"""The budget meter contract (the counters of budgets' windows), in this process and on
the machine's Redis, where two meters on two clients stand for two replicas."""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis

from records.usage.budgets import Charge, Counter, Refusal
from stores.budgets.base import BudgetMeter
from stores.budgets.memory import InMemoryBudgetMeter
from stores.budgets.redis import RedisBudgetMeter
from tests.contract.conftest import REDIS_URL, drop_prefix


class Meters:
    """Makes meters over the same counters (`make`) and lets time pass (`advance`): on a
    clock of its own in this process, on Redis's own clock on Redis."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.now = 1_000.0
        self.prefix = f"agentd-test:{secrets.token_hex(6)}:"
        self.clients: list[redis.Redis] = []
        self._shared: InMemoryBudgetMeter | None = None

    def make(self) -> BudgetMeter:
        if self.kind == "memory":
            if self._shared is None:
                self._shared = InMemoryBudgetMeter(clock=lambda: self.now)
            return self._shared
        pool = redis.BlockingConnectionPool.from_url(REDIS_URL, max_connections=16)
        client = redis.Redis.from_pool(pool)  # closed with the client
        self.clients.append(client)
        return RedisBudgetMeter(client, self.prefix)

    async def advance(self, seconds: float) -> None:
        if self.kind == "memory":
            self.now += seconds
        else:
            await asyncio.sleep(seconds)


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def meters(request: pytest.FixtureRequest) -> AsyncIterator[Meters]:
    made = Meters(request.param)
    try:
        yield made
    finally:
        if made.clients:
            await drop_prefix(made.clients[0], made.prefix)
        for client in made.clients:
            await client.aclose()


@pytest.fixture
def meter(meters: Meters) -> BudgetMeter:
    return meters.make()


TTL = 60.0


async def seeded(meter: BudgetMeter, *counters: str) -> None:
    for counter in counters:
        await meter.seed(counter, 0, None)


async def test_a_reservation_holds_until_settled_with_what_was_spent(meter: BudgetMeter) -> None:
    await seeded(meter, "b1:day")
    assert await meter.reserve("r1", [Charge("b1:day", 300, limit=1_000)], TTL) is None
    assert await meter.read(["b1:day"]) == {"b1:day": Counter(0, 300)}
    assert await meter.reserve("r2", [Charge("b1:day", 500, limit=1_000)], TTL) is None
    await meter.settle("r1", {"b1:day": 250})
    assert await meter.read(["b1:day"]) == {"b1:day": Counter(250, 500)}
    await meter.settle("r2", {"b1:day": 620})  # more than it reserved
    assert await meter.read(["b1:day"]) == {"b1:day": Counter(870, 0)}
    await meter.settle("r2", {"b1:day": 5})  # nothing is held any more: spent only
    assert await meter.read(["b1:day"]) == {"b1:day": Counter(875, 0)}


async def test_a_charge_fits_up_to_its_limit_and_zero_is_none(meter: BudgetMeter) -> None:
    await seeded(meter, "a")
    assert await meter.reserve("r1", [Charge("a", 1_000, limit=1_000)], TTL) is None
    assert await meter.reserve("r2", [Charge("a", 1, limit=1_000)], TTL) == Refusal(0, False, 0)
    assert await meter.reserve("r3", [Charge("a", 10**12)], TTL) is None
    assert await meter.read(["a"]) == {"a": Counter(0, 10**12 + 1_000)}


async def test_a_reservation_is_all_or_nothing(meter: BudgetMeter) -> None:
    await meter.seed("full", 950, None)
    await seeded(meter, "roomy", "other")
    charges = [
        Charge("roomy", 100, limit=1_000),
        Charge("full", 100, limit=1_000),
        Charge("other", 100, limit=1_000),
    ]
    assert await meter.reserve("r1", charges, TTL) == Refusal(1, False, 50)
    assert await meter.read(["roomy", "full", "other"]) == {
        "roomy": Counter(),
        "full": Counter(950, 0),
        "other": Counter(),
    }
    assert await meter.reserve("r2", [charges[0], charges[2]], TTL) is None
    held = Counter(0, 100)
    assert await meter.read(["roomy", "other"]) == {"roomy": held, "other": held}


async def test_hard_limits_are_checked_before_soft_ones(meter: BudgetMeter) -> None:
    await meter.seed("a", 800, None)
    await meter.seed("b", 800, None)
    soft_only = Charge("a", 100, limit=2_000, soft_limit=850)
    hard = Charge("b", 300, limit=1_000, soft_limit=900)
    assert await meter.reserve("r1", [soft_only, hard], TTL) == Refusal(1, False, 200)
    assert await meter.reserve("r2", [soft_only], TTL) == Refusal(0, True, 50)
    approved = Charge("a", 100, limit=2_000)  # its soft limit approved for this task
    assert await meter.reserve("r3", [approved, Charge("b", 200, limit=1_000)], TTL) is None
    assert await meter.read(["a", "b"]) == {"a": Counter(800, 100), "b": Counter(800, 200)}


async def test_room_counts_what_is_reserved_and_is_never_negative(meter: BudgetMeter) -> None:
    await meter.seed("a", 700, None)
    assert await meter.reserve("r1", [Charge("a", 200, limit=1_000)], TTL) is None
    assert await meter.reserve("r2", [Charge("a", 200, limit=1_000)], TTL) == Refusal(0, False, 100)
    await meter.settle("r1", {"a": 900})  # spent past the limit
    assert await meter.reserve("r3", [Charge("a", 1, limit=1_000)], TTL) == Refusal(0, False, 0)
    assert await meter.reserve("r4", [Charge("a", 1, soft_limit=1_000)], TTL) == Refusal(0, True, 0)


async def test_charges_on_one_counter_count_together(meter: BudgetMeter) -> None:
    await seeded(meter, "a")
    twice = [Charge("a", 600, limit=1_000), Charge("a", 600, limit=1_000)]
    assert await meter.reserve("r1", twice, TTL) == Refusal(1, False, 400)
    assert await meter.read(["a"]) == {"a": Counter()}
    assert await meter.reserve("r2", [Charge("a", 400, limit=1_000), twice[1]], TTL) is None
    assert await meter.read(["a"]) == {"a": Counter(0, 1_000)}
    await meter.settle("r2", {"a": 900})  # both its holds are released
    assert await meter.read(["a"]) == {"a": Counter(900, 0)}


async def test_a_reservation_lapses_after_its_ttl(meters: Meters, meter: BudgetMeter) -> None:
    await seeded(meter, "a")
    assert await meter.reserve("r1", [Charge("a", 800, limit=1_000)], 0.1) is None
    assert await meter.reserve("r2", [Charge("a", 100, limit=1_000)], TTL) is None
    assert await meter.reserve("r3", [Charge("a", 800, limit=1_000)], TTL) == Refusal(0, False, 100)
    await meters.advance(0.15)
    assert await meter.read(["a"]) == {"a": Counter(0, 100)}
    assert await meter.reserve("r3", [Charge("a", 800, limit=1_000)], TTL) is None
    await meter.settle("r1", {"a": 700})  # lapsed: what it spent still counts
    assert await meter.read(["a"]) == {"a": Counter(700, 900)}
    await meter.settle("r2", {"a": 100})
    await meter.settle("r3", {"a": 0})
    assert await meter.read(["a"]) == {"a": Counter(800, 0)}


async def test_settle_releases_the_counters_it_names_once(
    meters: Meters, meter: BudgetMeter
) -> None:
    await seeded(meter, "a", "b")
    assert await meter.reserve("r1", [Charge("a", 300), Charge("b", 300)], 0.1) is None
    await meter.settle("r1", {"a": 200})
    assert await meter.read(["a", "b"]) == {"a": Counter(200, 0), "b": Counter(0, 300)}
    await meters.advance(0.15)  # b was left out of the settle: its hold lapses
    assert await meter.read(["a", "b"]) == {"a": Counter(200, 0), "b": Counter(0, 0)}


async def test_seed_sets_only_a_counter_not_there(meters: Meters, meter: BudgetMeter) -> None:
    assert not await meter.exists("a")
    assert await meter.read(["a"]) == {"a": Counter()}
    await meter.seed("a", 500, None)
    assert await meter.exists("a")
    await meter.seed("a", 900, None)
    assert await meter.read(["a", "a"]) == {"a": Counter(500, 0)}
    await meters.advance(0.15)  # a counter seeded without a ttl never expires
    assert await meter.exists("a")


async def test_only_seed_makes_a_counter(meter: BudgetMeter) -> None:
    """A counter that is not there (never seeded, or lost with a Redis restart) is never
    made at 0 by a reservation or a settlement: the caller seeds it from the ledger."""
    await seeded(meter, "a")
    charges = [Charge("a", 10, limit=100), Charge("gone", 10, limit=100)]
    assert await meter.reserve("r1", charges, TTL) == Refusal(1, False, 0, missing=True)
    assert await meter.read(["a"]) == {"a": Counter()}  # nothing reserved on `a` either
    await meter.settle("r0", {"gone": 7, "a": 3})
    assert not await meter.exists("gone")
    assert await meter.read(["a"]) == {"a": Counter(3, 0)}
    await meter.seed("gone", 40, None)  # from the ledger
    assert await meter.reserve("r1", charges, TTL) is None
    assert await meter.read(["gone"]) == {"gone": Counter(40, 10)}


async def test_counters_expire_after_their_ttl(meters: Meters) -> None:
    meter = meters.make()
    await meter.seed("seeded", 500, 0.1)
    await meter.seed("kept", 500, None)
    assert await meter.reserve("r1", [Charge("seeded", 10), Charge("kept", 10)], TTL) is None
    await meters.advance(0.15)
    assert not await meter.exists("seeded")
    assert await meter.read(["seeded", "kept"]) == {
        "seeded": Counter(),
        "kept": Counter(500, 10),
    }
    await meter.settle("r1", {"seeded": 4, "kept": 10})  # gone: it stays gone
    assert not await meter.exists("seeded")
    assert await meter.read(["kept"]) == {"kept": Counter(510, 0)}


async def test_two_replicas_never_reserve_past_a_limit(meters: Meters) -> None:
    one, other = meters.make(), meters.make()
    await seeded(one, "day")
    limit, rng = 3_000, random.Random(7)
    amounts = [rng.randint(1, 60) for _ in range(200)]
    granted: list[int] = []
    refusals: list[tuple[int, Refusal]] = []

    async def call(i: int, amount: int) -> None:
        meter = one if i % 2 else other
        refusal = await meter.reserve(f"r{i}", [Charge("day", amount, limit=limit)], TTL)
        if refusal is not None:
            refusals.append((amount, refusal))
            return
        granted.append(amount)
        await asyncio.sleep(0)
        await meter.settle(f"r{i}", {"day": amount})

    await asyncio.gather(*(call(i, amount) for i, amount in enumerate(amounts)))
    # Every reservation was settled with what it held: spent and reserved only grew, so
    # what was granted in all bounds what was held at any moment.
    assert sum(granted) <= limit
    assert refusals, "the calls asked for more than the limit in all"
    for amount, refusal in refusals:  # each had no room when it asked; room only shrinks
        assert refusal.room < amount
        assert sum(granted) > limit - amount
    assert await one.read(["day"]) == {"day": Counter(sum(granted), 0)}
