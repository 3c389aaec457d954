"""The rate limiter contract, in-process and on the machine's Redis (shared by replicas)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable

import pytest
import redis.asyncio as redis

from stores.rate_limits.base import Rate, RateLimiter
from stores.rate_limits.memory import InMemoryRateLimiter
from stores.rate_limits.redis import RedisRateLimiter
from tests.contract.conftest import REDIS_URL, drop_prefix

LIMITS = {"Execute": Rate(2, 1.0), "*": Rate(100, 1.0)}


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def limiters(
    request: pytest.FixtureRequest,
) -> AsyncIterator[Callable[[], RateLimiter]]:
    """Makes limiters that share their buckets, as the replicas of one deployment do."""
    if request.param == "memory":
        shared = InMemoryRateLimiter(LIMITS)
        yield lambda: shared
        return
    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    try:
        yield lambda: RedisRateLimiter(client, LIMITS, prefix, "principal")
    finally:
        await drop_prefix(client, prefix)
        await client.aclose()


async def test_a_burst_then_a_wait_then_tokens_again(
    limiters: Callable[[], RateLimiter],
) -> None:
    one, other = limiters(), limiters()
    assert await one.take("acme/alice", "Execute") == 0.0
    assert await other.take("acme/alice", "Execute") == 0.0  # the same bucket
    wait = await one.take("acme/alice", "Execute")
    assert 0.3 < wait <= 0.5
    assert await other.take("acme/bob", "Execute") == 0.0  # another key
    assert await other.take("acme/alice", "CallTool") == 0.0  # another method's bucket
    await asyncio.sleep(0.55)
    assert await other.take("acme/alice", "Execute") == 0.0


async def test_methods_without_a_rate_of_their_own_share_the_star_bucket(
    limiters: Callable[[], RateLimiter],
) -> None:
    limiter = limiters()
    # '*' = 100/s applies: takes one after another run dry (unless each took over 10 ms).
    waits = []
    for _ in range(1_000):
        waits.append(await limiter.take("k", "ListTools"))
        if waits[-1] > 0:
            break
    assert waits[-1] > 0
    assert len(waits) > 100  # the bucket held 100 tokens to begin with
    assert limiter.rate_for("Execute") == Rate(2, 1.0)


async def test_redis_out_of_reach_lets_calls_through() -> None:
    client = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2)
    limiter = RedisRateLimiter(client, LIMITS, "agentd-test:", "principal")
    try:
        assert [await limiter.take("k", "Execute") for _ in range(5)] == [0.0] * 5
    finally:
        await client.aclose()
