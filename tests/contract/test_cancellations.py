"""The CancelBus contract, in one process and across replicas on the machine's Redis.

On Redis each `replica` is a process of its own: its own subscription connection, one
channel for all. In one process there is no other replica to tell: publishing is a no-op
that never fails and a subscription hears nothing, so where Redis delivers a cancellation
the expected outcome in memory is nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field

import pytest
import redis.asyncio as redis

from stores.cancellations.base import CancelBus
from stores.cancellations.memory import InMemoryCancelBus
from stores.cancellations.redis import RedisCancelBus
from stores.redis import RedisSubscriptions
from tests.contract.conftest import REDIS_URL, drop_prefix

Cancellation = tuple[str, str]


class Follower:
    """One subscription, read in a task of its own: what arrived is in `received`."""

    def __init__(self, bus: CancelBus) -> None:
        self.received: list[Cancellation] = []
        self._arrived = asyncio.Condition()
        self.task = asyncio.create_task(self._follow(bus.subscribe()))

    async def _follow(self, stream: AsyncIterator[Cancellation]) -> None:
        async for cancellation in stream:
            async with self._arrived:
                self.received.append(cancellation)
                self._arrived.notify_all()

    async def until(self, count: int, seconds: float = 5.0) -> list[Cancellation]:
        """What arrived, once at least `count` cancellations did (or the time is up)."""
        async with self._arrived:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._arrived.wait_for(lambda: len(self.received) >= count), seconds
                )
        return self.received

    async def stop(self) -> None:
        """Leave the subscription (what a failed one raised is the test's to assert)."""
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


@dataclass
class Bus:
    """The replicas of one cancellation bus, and what a test needs to watch them."""

    shared: bool
    new_replica: Callable[[], CancelBus]
    connection: redis.Redis | None = None
    channel: str = ""
    followers: list[Follower] = field(default_factory=list)

    def replica(self) -> CancelBus:
        return self.new_replica()

    def follow(self, replica: CancelBus) -> Follower:
        follower = Follower(replica)
        self.followers.append(follower)
        return follower

    async def listening(self, replicas: int) -> None:
        """Once the subscriptions started so far take effect: on Redis, when `replicas`
        subscription connections listen on the channel (none: every one has left)."""
        await asyncio.sleep(0)  # every subscription started so far begins listening
        if self.connection is None:
            return
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            [(_, count)] = await self.connection.pubsub_numsub(self.channel)
            if count == replicas:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{count} replicas listen on {self.channel}, not {replicas}")

    async def publish_raw(self, data: bytes) -> None:
        assert self.connection is not None
        await self.connection.publish(self.channel, data)


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def bus(request: pytest.FixtureRequest) -> AsyncIterator[Bus]:
    if request.param == "memory":
        local = Bus(shared=False, new_replica=InMemoryCancelBus)
        yield local
        for follower in local.followers:
            await follower.stop()
        return
    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    connections: list[RedisSubscriptions] = []

    def replica() -> CancelBus:
        connections.append(RedisSubscriptions(redis.Redis.from_url(REDIS_URL)))
        return RedisCancelBus(client, prefix, connections[-1])

    shared = Bus(True, replica, client, f"{prefix}cancel")
    try:
        yield shared
    finally:
        for follower in shared.followers:
            await follower.stop()
        for subscriptions in connections:
            await subscriptions.close()
        await drop_prefix(client, prefix)
        await client.aclose()


async def _next(stream: AsyncIterator[Cancellation]) -> Cancellation | None:
    return await anext(stream, None)


async def test_publishing_returns_and_never_raises(bus: Bus) -> None:
    replica = bus.replica()
    for task_id, reason in (("task-1", "the user cancelled"), ("task-2", ""), ("täsk", "⏹" * 5)):
        await replica.publish(task_id, reason)  # no subscriber: nobody hears
    await replica.publish("task-3", "x" * 100_000)


async def test_a_cancellation_reaches_every_subscriber_of_every_replica(bus: Bus) -> None:
    a, b = bus.replica(), bus.replica()
    followers = [bus.follow(a), bus.follow(a), bus.follow(b)]
    await bus.listening(2 if bus.shared else 0)
    await b.publish("task-1", "the user cancelled")
    await a.publish("task-2", "")
    expected = [("task-1", "the user cancelled"), ("task-2", "")] if bus.shared else []
    for follower in followers:
        assert await follower.until(len(expected)) == expected
    await asyncio.sleep(0.1)  # and each arrives once
    assert [f.received for f in followers] == [expected] * 3


async def test_a_subscription_sees_only_what_is_published_after_it(bus: Bus) -> None:
    a, b = bus.replica(), bus.replica()
    await b.publish("task-early", "before anyone listened")
    follower = bus.follow(a)
    await bus.listening(1 if bus.shared else 0)
    await b.publish("task-1", "in time")
    expected = [("task-1", "in time")] if bus.shared else []
    assert await follower.until(len(expected)) == expected


async def test_closing_a_subscription_stops_its_delivery(bus: Bus) -> None:
    a = bus.replica()
    stream = a.subscribe()
    assert isinstance(stream, AsyncGenerator)  # closed with aclose()
    first = asyncio.create_task(_next(stream))
    other = bus.follow(a)
    await bus.listening(1 if bus.shared else 0)
    await a.publish("task-1", "first")
    assert await asyncio.wait_for(first, 5) == (("task-1", "first") if bus.shared else None)
    await stream.aclose()
    await a.publish("task-2", "second")
    assert await _next(stream) is None  # a closed subscription yields nothing more
    expected = [("task-1", "first"), ("task-2", "second")] if bus.shared else []
    assert await other.until(len(expected)) == expected  # the other one still hears
    await other.stop()
    await bus.listening(0)  # with no subscription left the replica stops listening
    await a.publish("task-3", "unheard")
    assert other.received == expected


@pytest.mark.redis
@pytest.mark.parametrize("bus", ["redis"], indirect=True)
async def test_malformed_messages_on_the_channel_are_skipped(bus: Bus) -> None:
    follower = bus.follow(bus.replica())
    await bus.listening(1)
    for garbage in (
        b"",
        b"not json",
        b"\xff\xfe",
        b"null",
        b"42",
        b'"task-1"',
        b'["task-1", "a reason"]',
        b"{}",
        b'{"reason": "no task id"}',
        b"[" * 100_000,  # nested past the JSON decoder's recursion limit
    ):
        await bus.publish_raw(garbage)
    await bus.replica().publish("task-1", "well formed")
    assert await follower.until(1) == [("task-1", "well formed")]
    await bus.publish_raw(b'{"task_id": "task-2"}')  # no reason: an empty one
    assert await follower.until(2) == [("task-1", "well formed"), ("task-2", "")]
    assert not follower.task.done()  # still listening


async def test_in_one_process_a_subscription_ends_at_once() -> None:
    local = InMemoryCancelBus()
    await local.publish("task-1", "nobody else to tell")
    stream = local.subscribe()
    assert isinstance(stream, AsyncGenerator)
    assert await _next(stream) is None
    await local.publish("task-2", "still nobody")
    assert await _next(stream) is None
    await stream.aclose()
