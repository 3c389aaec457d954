"""The Leases contract: held, renewed, lost, released and claimed by exactly one.

On Redis (the machine's real server) each `replica` is a process of its own. In memory
there is one process and nothing is shared: every replica name is that process's
`InMemoryLeases`, whose leases are always held, so nothing is ever orphaned or lost and
where Redis hands a task over the expected outcome is empty.
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
    assert await b.claim_orphans(10) == ([("t1", "task-1")] if a.shared else [])


async def test_only_the_holder_can_release_or_finish(replica: Replicas) -> None:
    a, b, c = replica("a", ttl=60), replica("b"), replica("c")
    await a.acquire("t1", "task-1")
    await b.release("task-1")
    assert await c.claim_orphans(10) == []
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
    assert len(first) == (300 if a.shared else 0)
    assert len(second) == (150 if a.shared else 0)
    released = {f"task-{i}" for i in range(450)} if a.shared else set()
    assert {t for _, t in first} | {t for _, t in second} == released


async def test_a_renewal_of_unknown_ids_reports_them_lost(replica: Replicas) -> None:
    a = replica("a")
    assert await a.renew(["nope", "neither"]) == ({"nope", "neither"} if a.shared else set())


async def test_local_leases_never_orphan_anything() -> None:
    local = InMemoryLeases()
    await local.acquire("t1", "task-1")
    assert await local.renew(["task-1"]) == set()
    await local.release("task-1")
    assert await local.claim_orphans(10) == []
    assert local.shared is False
    await local.acquire("t1", "task-2")
    await local.finish("task-2")
    await local.finish("task-never-acquired")
    await local.release("task-never-acquired")
    assert await local.renew(["task-2", "task-never-acquired"]) == set()
    assert await local.claim_orphans(10) == []
