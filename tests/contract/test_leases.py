"""The Leases contract: held, renewed, lost, released and claimed by exactly one; parked,
woken by exactly one and claimed again.

On Redis (the machine's real server) each `replica` is a process of its own. In memory
there is one process and nothing is shared: every replica name is that process's
`InMemoryLeases`. Its leases never expire, so where Redis hands over a task whose lease
ran out the expected outcome in memory is empty; but a task it released, or woke, is
claimed again (by `claim_orphans` or `claim`), as on Redis. Where a test has another
replica act on a task's lease, in memory that replica *is* the holder.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import redis.asyncio as redis

from stores.leases.base import Leases
from stores.leases.memory import InMemoryLeases
from stores.leases.redis import RedisLeases

Replicas = Callable[..., Leases]
"""replica(name, ttl=0.5): the leases of the process called `name`."""


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def replica(request: pytest.FixtureRequest) -> Replicas:
    if request.param == "memory":
        process = InMemoryLeases()

        def local(name: str, ttl: float = 0.5) -> Leases:
            return process

        return local
    space: tuple[redis.Redis, str] = request.getfixturevalue("redis_space")

    def shared(name: str, ttl: float = 0.5) -> Leases:
        return RedisLeases(space[0], space[1], ttl_seconds=ttl, replica=name)

    return shared


async def test_a_held_lease_is_not_claimed(replica: Replicas) -> None:
    a, b = replica("a"), replica("b")
    await a.acquire("t1", "task-1")
    assert await b.claim_orphans(10) == []
    assert await a.renew(["task-1"]) == set()


async def test_an_expired_lease_is_claimed_by_exactly_one(replica: Replicas) -> None:
    a = replica("a", ttl=0.2)
    await a.acquire("t1", "task-1")
    await asyncio.sleep(0.35)
    rivals = [replica(f"r{i}") for i in range(5)]
    results = await asyncio.gather(*(r.claim_orphans(10) for r in rivals))
    winners = [r for r in results if r]
    assert winners == ([[("t1", "task-1")]] if a.shared else [])
    # The old holder learns it lost it (a process of its own never loses a lease).
    assert await a.renew(["task-1"]) == ({"task-1"} if a.shared else set())


async def test_renewal_keeps_a_lease_past_its_ttl(replica: Replicas) -> None:
    a, b = replica("a", ttl=0.3), replica("b")
    await a.acquire("t1", "task-1")
    for _ in range(4):
        await asyncio.sleep(0.15)
        assert await a.renew(["task-1"]) == set()
    assert await b.claim_orphans(10) == []


async def test_release_hands_the_task_over_at_once(replica: Replicas) -> None:
    a, b = replica("a", ttl=60), replica("b", ttl=60)
    await a.acquire("t1", "task-1")
    await a.release("task-1")
    assert await b.claim_orphans(10) == [("t1", "task-1")]
    assert await b.claim_orphans(10) == []  # claimed once


async def test_only_the_holder_can_release_or_finish(replica: Replicas) -> None:
    a, b, c = replica("a", ttl=60), replica("b"), replica("c")
    await a.acquire("t1", "task-1")
    await b.release("task-1")
    # In memory b is the holder's own process: its release hands the task over.
    assert await c.claim_orphans(10) == ([] if a.shared else [("t1", "task-1")])
    assert await a.renew(["task-1"]) == set()


async def test_finish_removes_the_task_for_good(replica: Replicas) -> None:
    a, b = replica("a", ttl=0.2), replica("b")
    await a.acquire("t1", "task-1")
    await a.acquire("t1", "task-2")
    await a.finish("task-1")
    await asyncio.sleep(0.3)
    assert await b.claim_orphans(10) == ([("t1", "task-2")] if a.shared else [])


async def test_claims_stop_at_the_limit(replica: Replicas) -> None:
    a, b = replica("a", ttl=60), replica("b", ttl=60)
    for i in range(450):  # more than one HSCAN batch
        await a.acquire("t1", f"task-{i}")
    for i in range(450):
        await a.release(f"task-{i}")
    first = await b.claim_orphans(300)
    second = await b.claim_orphans(300)
    assert len(first) == 300
    assert len(second) == 150
    released = {f"task-{i}" for i in range(450)}
    assert {t for _, t in first} | {t for _, t in second} == released


async def test_a_renewal_of_unknown_ids_reports_them_lost(replica: Replicas) -> None:
    a = replica("a")
    assert await a.renew(["nope", "neither"]) == {"nope", "neither"}


async def test_local_leases_hold_what_they_run_and_expire_nothing() -> None:
    local = InMemoryLeases(ttl_seconds=0.01)
    await local.acquire("t1", "task-1")
    await asyncio.sleep(0.05)  # far past its ttl: held all the same
    assert await local.renew(["task-1"]) == set()
    assert await local.claim_orphans(10) == []
    await local.release("task-1")
    assert await local.renew(["task-1"]) == {"task-1"}
    assert await local.claim_orphans(10) == [("t1", "task-1")]
    assert local.shared is False
    await local.acquire("t1", "task-2")
    await local.finish("task-2")
    await local.finish("task-never-acquired")
    await local.release("task-never-acquired")
    assert await local.renew(["task-2", "task-never-acquired"]) == {"task-2", "task-never-acquired"}
    assert await local.claim_orphans(10) == []


async def test_a_parked_task_is_neither_claimed_nor_renewed(replica: Replicas) -> None:
    a, b = replica("a", ttl=0.2), replica("b", ttl=60)
    await a.acquire("t1", "task-1")
    await a.acquire("t1", "task-2")
    await a.park("t1", "task-1")
    assert await a.renew(["task-1", "task-2"]) == {"task-1"}
    assert await b.claim_orphans(10) == []
    assert await b.claim("task-1") is False
    assert await a.claim("task-1") is False
    await a.release("task-1")  # no lease to give up: it stays parked
    await a.release("task-2")
    await asyncio.sleep(0.3)  # past the old lease's ttl
    assert await b.claim_orphans(10) == [("t1", "task-2")]
    assert await a.renew(["task-1"]) == {"task-1"}


async def test_exactly_one_of_ten_racing_wakers_wakes_a_parked_task(replica: Replicas) -> None:
    a = replica("a", ttl=60)
    await a.acquire("t1", "task-1")
    await a.park("t1", "task-1")
    wakers = [replica(f"w{i}") for i in range(10)]
    woken = await asyncio.gather(*(w.wake("task-1") for w in wakers))
    assert sorted(woken) == [False] * 9 + [True]
    assert await a.wake("task-1") is False  # active already


async def test_a_woken_task_is_claimed_by_exactly_one_replica(replica: Replicas) -> None:
    a = replica("a", ttl=60)
    await a.acquire("t1", "task-1")
    await a.park("t1", "task-1")
    assert await replica("waker").wake("task-1") is True
    rivals = [replica(f"r{i}", ttl=60) for i in range(5)]
    claimed = await asyncio.gather(*(r.claim("task-1") for r in rivals))
    assert sorted(claimed) == [False] * 4 + [True]
    winner = rivals[claimed.index(True)]
    assert await winner.renew(["task-1"]) == set()
    assert await replica("late", ttl=60).claim_orphans(10) == []
    assert await replica("late", ttl=60).claim("task-1") is False


async def test_a_woken_task_nobody_claimed_is_taken_over(replica: Replicas) -> None:
    a, b = replica("a", ttl=60), replica("b", ttl=60)
    await a.acquire("t1", "task-1")
    await a.park("tenant-of-park", "task-1")
    assert await b.claim_orphans(10) == []
    assert await a.wake("task-1") is True
    assert await b.claim_orphans(10) == [("tenant-of-park", "task-1")]
    assert await b.renew(["task-1"]) == set()
    assert await b.claim("task-1") is False  # held (by itself, now)


async def test_only_a_parked_task_is_woken(replica: Replicas) -> None:
    a, b = replica("a", ttl=60), replica("b", ttl=60)
    assert await a.wake("task-never-seen") is False
    await a.acquire("t1", "task-1")
    assert await b.wake("task-1") is False  # running, not parked
    assert await a.renew(["task-1"]) == set()
    assert await b.claim("task-never-seen") is False


async def test_finishing_a_parked_task_removes_it(replica: Replicas) -> None:
    a, b = replica("a", ttl=60), replica("b", ttl=60)
    await a.acquire("t1", "task-1")
    await a.park("t1", "task-1")
    await b.finish("task-1")  # e.g. cancelled while it waited, by whichever replica
    assert await a.wake("task-1") is False
    assert await b.claim("task-1") is False
    assert await b.claim_orphans(10) == []


async def test_a_park_by_a_replica_that_lost_the_lease_is_refused(replica: Replicas) -> None:
    """On Redis b took the task over (it holds the lease): a's wait is stale, the task
    stays b's. In memory "a" and "b" are one process, the holder: the task parks."""
    a, b = replica("a", ttl=60), replica("b", ttl=60)
    await a.acquire("t1", "task-1")
    await b.park("t1", "task-1")
    assert await a.renew(["task-1"]) == (set() if a.shared else {"task-1"})
    assert await b.wake("task-1") is (not a.shared)


async def test_no_orphan_claim_returns_a_task_parked_meanwhile(replica: Replicas) -> None:
    a = replica("a", ttl=60)
    ids = [f"task-{i}" for i in range(200)]
    for task_id in ids:
        await a.acquire("t1", task_id)
    for task_id in ids:
        await a.release(task_id)
    b, c = replica("b", ttl=60), replica("c", ttl=60)

    async def park_all() -> None:
        for task_id in ids:
            await a.park("t1", task_id)

    _, by_b, by_c = await asyncio.gather(park_all(), b.claim_orphans(500), c.claim_orphans(500))
    claimed = [t for _, t in by_b] + [t for _, t in by_c]
    woken = {t for t in ids if await replica("w").wake(t)}
    assert len(claimed) == len(set(claimed))  # each by one replica
    assert set(claimed).isdisjoint(woken)  # a claimed task was never parked
    assert set(claimed) | woken == set(ids)  # a park after a claim is refused: it runs


@pytest.mark.redis
async def test_on_redis_a_parked_task_has_no_lease_and_sits_apart(
    redis_space: tuple[redis.Redis, str],
) -> None:
    client, prefix = redis_space
    a = RedisLeases(client, prefix, ttl_seconds=60, replica="a")
    await a.acquire("t1", "task-1")
    await a.park("t1", "task-1")
    assert await client.exists(f"{prefix}lease:task-1") == 0
    assert await client.hget(f"{prefix}parked", "task-1") == b"t1"
    assert await client.hexists(f"{prefix}active", "task-1") == 0
    assert await a.wake("task-1") is True
    assert await client.hexists(f"{prefix}parked", "task-1") == 0
    assert await client.hget(f"{prefix}active", "task-1") == b"t1"
    assert await client.exists(f"{prefix}lease:task-1") == 0
    assert await a.claim("task-1") is True
    assert await client.get(f"{prefix}lease:task-1") == b"a"
