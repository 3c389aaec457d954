"""The WakeBus contract: a wake published by one replica reaches every other replica's
subscription (on the machine's Redis); in one process nobody else is told."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis

from stores.redis import RedisSubscriptions
from stores.wakes.memory import InMemoryWakeBus
from stores.wakes.redis import RedisWakeBus
from tests.contract.conftest import REDIS_URL, drop_prefix


async def test_in_one_process_publishing_tells_nobody() -> None:
    bus = InMemoryWakeBus()
    await bus.publish("acme", "task-1")
    assert [wake async for wake in bus.subscribe()] == []


@pytest.mark.redis
async def test_a_wake_reaches_every_other_replica_and_malformed_ones_are_skipped() -> None:
    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    connections = [RedisSubscriptions(redis.Redis.from_url(REDIS_URL)) for _ in range(2)]
    a, b = (RedisWakeBus(client, prefix, c) for c in connections)
    heard: dict[str, list[tuple[str, str]]] = {"a": [], "b": []}

    async def follow(name: str, stream: AsyncIterator[tuple[str, str]]) -> None:
        async for wake in stream:
            heard[name].append(wake)

    followers = [asyncio.create_task(follow("a", a.subscribe())),
                 asyncio.create_task(follow("b", b.subscribe()))]  # fmt: skip
    try:
        deadline = time.monotonic() + 5
        while (await client.pubsub_numsub(f"{prefix}wake"))[0][1] < 2:
            assert time.monotonic() < deadline, "the replicas never listened"
            await asyncio.sleep(0.01)
        for raw in (b"not json", b"[1, 2]", b'{"tenant": 7, "task_id": "x"}', b"[" * 100_000):
            await client.publish(f"{prefix}wake", raw)
        await a.publish("acme", "task-1")
        deadline = time.monotonic() + 5
        while len(heard["a"]) + len(heard["b"]) < 2:
            assert time.monotonic() < deadline, heard
            await asyncio.sleep(0.01)
        assert heard == {"a": [("acme", "task-1")], "b": [("acme", "task-1")]}
    finally:
        for task in followers:
            task.cancel()
        await asyncio.gather(*followers, return_exceptions=True)
        for subscriptions in connections:
            await subscriptions.close()
        await drop_prefix(client, prefix)
        await client.aclose()
