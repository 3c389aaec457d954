"""Leases on the machine's Redis: held, renewed, lost, released and claimed by exactly one."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis

from agent.leases import LocalLeases
from agent.redis_leases import RedisLeases
from tests.contract.conftest import REDIS_URL, drop_prefix

pytestmark = pytest.mark.redis


@pytest.fixture
async def client() -> AsyncIterator[tuple[redis.Redis, str]]:
    connection = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    try:
        yield connection, prefix
    finally:
        await drop_prefix(connection, prefix)
        await connection.aclose()


def replica(pair: tuple[redis.Redis, str], name: str, ttl: float = 0.5) -> RedisLeases:
    return RedisLeases(pair[0], pair[1], ttl_seconds=ttl, replica=name)


async def test_a_held_lease_is_not_claimed(client: tuple[redis.Redis, str]) -> None:
    a, b = replica(client, "a"), replica(client, "b")
    await a.acquire("t1", "task-1")
    assert await b.claim_orphans(10) == []
    assert await a.renew(["task-1"]) == set()


async def test_an_expired_lease_is_claimed_by_exactly_one(
    client: tuple[redis.Redis, str],
) -> None:
    a = replica(client, "a", ttl=0.2)
    await a.acquire("t1", "task-1")
    await asyncio.sleep(0.35)
    rivals = [replica(client, f"r{i}") for i in range(5)]
    results = await asyncio.gather(*(r.claim_orphans(10) for r in rivals))
    winners = [r for r in results if r]
    assert winners == [[("t1", "task-1")]]
    assert await a.renew(["task-1"]) == {"task-1"}  # the old holder learns it lost it


async def test_renewal_keeps_a_lease_past_its_ttl(client: tuple[redis.Redis, str]) -> None:
    a, b = replica(client, "a", ttl=0.3), replica(client, "b")
    await a.acquire("t1", "task-1")
    for _ in range(4):
        await asyncio.sleep(0.15)
        assert await a.renew(["task-1"]) == set()
    assert await b.claim_orphans(10) == []


async def test_release_hands_the_task_over_at_once(client: tuple[redis.Redis, str]) -> None:
    a, b = replica(client, "a", ttl=60), replica(client, "b", ttl=60)
    await a.acquire("t1", "task-1")
    await a.release("task-1")
    assert await b.claim_orphans(10) == [("t1", "task-1")]


async def test_only_the_holder_can_release_or_finish(client: tuple[redis.Redis, str]) -> None:
    a, b, c = replica(client, "a", ttl=60), replica(client, "b"), replica(client, "c")
    await a.acquire("t1", "task-1")
    await b.release("task-1")
    assert await c.claim_orphans(10) == []
    assert await a.renew(["task-1"]) == set()


async def test_finish_removes_the_task_for_good(client: tuple[redis.Redis, str]) -> None:
    a, b = replica(client, "a", ttl=0.2), replica(client, "b")
    await a.acquire("t1", "task-1")
    await a.acquire("t1", "task-2")
    await a.finish("task-1")
    await asyncio.sleep(0.3)
    assert await b.claim_orphans(10) == [("t1", "task-2")]


async def test_claims_stop_at_the_limit(client: tuple[redis.Redis, str]) -> None:
    a, b = replica(client, "a", ttl=60), replica(client, "b", ttl=60)
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
    client: tuple[redis.Redis, str],
) -> None:
    assert await replica(client, "a").renew(["nope", "neither"]) == {"nope", "neither"}


async def test_local_leases_never_orphan_anything() -> None:
    local = LocalLeases()
    await local.acquire("t1", "task-1")
    assert await local.renew(["task-1"]) == set()
    await local.release("task-1")
    assert await local.claim_orphans(10) == []
    assert local.shared is False
