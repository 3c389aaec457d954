"""The IdempotencyStore contract on memory and the machine's Redis."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis

from core.errors import IdempotencyConflictError
from stores.idempotency.base import IdempotencyStore
from stores.idempotency.memory import InMemoryIdempotencyStore
from stores.idempotency.redis import RedisIdempotencyStore
from tests.contract.conftest import REDIS_URL, drop_prefix


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def keys(request: pytest.FixtureRequest) -> AsyncIterator[IdempotencyStore]:
    if request.param == "memory":
        yield InMemoryIdempotencyStore()
        return
    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    try:
        yield RedisIdempotencyStore(client, prefix)
    finally:
        await drop_prefix(client, prefix)
        await client.aclose()


async def test_first_reservation_wins_and_later_ones_see_its_value(keys: IdempotencyStore) -> None:
    assert await keys.reserve("k", "fp", "task_1", 60) is None
    assert await keys.reserve("k", "fp", "task_2", 60) == "task_1"
    await keys.store("k", "fp", "result", 60)
    assert await keys.reserve("k", "fp", "task_3", 60) == "result"


async def test_another_request_under_the_same_key_conflicts(keys: IdempotencyStore) -> None:
    await keys.reserve("k", "fp", "task_1", 60)
    with pytest.raises(IdempotencyConflictError):
        await keys.reserve("k", "other", "task_2", 60)
    assert await keys.reserve("k", "fp", "x", 60) == "task_1"


async def test_concurrent_reservations_have_one_winner(keys: IdempotencyStore) -> None:
    results = await asyncio.gather(*(keys.reserve("race", "fp", f"t{i}", 60) for i in range(20)))
    winners = [r for r in results if r is None]
    assert len(winners) == 1
    assert len({r for r in results if r is not None}) == 1


async def test_release_and_expiry(keys: IdempotencyStore) -> None:
    await keys.reserve("k", "fp", "a", 60)
    await keys.release("k")
    assert await keys.reserve("k", "other", "b", 60) is None
    assert await keys.reserve("short", "fp", "a", 0.2) is None
    await asyncio.sleep(0.35)
    assert await keys.reserve("short", "different", "b", 60) is None
