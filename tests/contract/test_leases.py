"""Leases on the machine's Redis: held, renewed, lost, released and claimed by exactly one."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as redis

from stores.leases.memory import InMemoryLeases
from stores.leases.redis import RedisLeases

pytestmark = pytest.mark.redis


def replica(pair: tuple[redis.Redis, str], name: str, ttl: float = 0.5) -> RedisLeases:
    return RedisLeases(pair[0], pair[1], ttl_seconds=ttl, replica=name)


async def test_a_held_lease_is_not_claimed(redis_space: tuple[redis.Redis, str]) -> None:
    a, b = replica(redis_space, "a"), replica(redis_space, "b")
    await a.acquire("t1", "task-1")
    assert await b.claim_orphans(10) == []
    assert await a.renew(["task-1"]) == set()


async def test_an_expired_lease_is_claimed_by_exactly_one(
    redis_space: tuple[redis.Redis, str],
) -> None:
    a = replica(redis_space, "a", ttl=0.2)
    await a.acquire("t1", "task-1")
    await asyncio.sleep(0.35)
    rivals = [replica(redis_space, f"r{i}") for i in range(5)]
    results = await asyncio.gather(*(r.claim_orphans(10) for r in rivals))
    winners = [r for r in results if r]
    assert winners == [[("t1", "task-1")]]
    assert await a.renew(["task-1"]) == {"task-1"}  # the old holder learns it lost it


async def test_renewal_keeps_a_lease_past_its_ttl(redis_space: tuple[redis.Redis, str]) -> None:
    a, b = replica(redis_space, "a", ttl=0.3), replica(redis_space, "b")
    await a.acquire("t1", "task-1")
    for _ in range(4):
        await asyncio.sleep(0.15)
        assert await a.renew(["task-1"]) == set()
    assert await b.claim_orphans(10) == []


async def test_release_hands_the_task_over_at_once(redis_space: tuple[redis.Redis, str]) -> None:
    a, b = replica(redis_space, "a", ttl=60), replica(redis_space, "b", ttl=60)
    await a.acquire("t1", "task-1")
    await a.release("task-1")
    assert await b.claim_orphans(10) == [("t1", "task-1")]


async def test_only_the_holder_can_release_or_finish(redis_space: tuple[redis.Redis, str]) -> None:
    a, b, c = (
        replica(redis_space, "a", ttl=60),
        replica(redis_space, "b"),
        replica(redis_space, "c"),
    )
    await a.acquire("t1", "task-1")
    await b.release("task-1")
    assert await c.claim_orphans(10) == []
    assert await a.renew(["task-1"]) == set()


async def test_finish_removes_the_task_for_good(redis_space: tuple[redis.Redis, str]) -> None:
    a, b = replica(redis_space, "a", ttl=0.2), replica(redis_space, "b")
    await a.acquire("t1", "task-1")
    await a.acquire("t1", "task-2")
    await a.finish("task-1")
    await asyncio.sleep(0.3)
    assert await b.claim_orphans(10) == [("t1", "task-2")]


async def test_claims_stop_at_the_limit(redis_space: tuple[redis.Redis, str]) -> None:
    a, b = replica(redis_space, "a", ttl=60), replica(redis_space, "b", ttl=60)
    for i in range(450):  # more than one HSCAN batch
        await a.acquire("t1", f"task-{i}")
    for i in range(450):
        await a.release(f"task-{i}")
    first = await b.claim_orphans(300)
    second = await b.claim_orphans(300)
    assert len(first) == 300
    assert len(second) == 150
    assert {t for _, t in first} | {t for _, t in second} == {f"task-{i}" for i in range(450)}


async def test_a_renewal_of_unknown_ids_reports_them_lost(
    redis_space: tuple[redis.Redis, str],
) -> None:
    assert await replica(redis_space, "a").renew(["nope", "neither"]) == {"nope", "neither"}


async def test_local_leases_never_orphan_anything() -> None:
    local = InMemoryLeases()
    await local.acquire("t1", "task-1")
    assert await local.renew(["task-1"]) == set()
    await local.release("task-1")
    assert await local.claim_orphans(10) == []
    assert local.shared is False
