"""Event logs on Redis under many readers: a bounded number of connections whatever the
number of streams, readers on other replicas woken through pub/sub, appends never doubled."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as redis

from records import events as ev
from records.tasks import Task, TaskStatus
from stores.redis import RedisConnections, RedisOptions
from stores.tasks.redis import RedisTaskStore
from tests.contract.conftest import REDIS_URL, drop_prefix
from tests.unit.stores.test_redis_cancelled_calls import SPIN

pytestmark = pytest.mark.redis

DONE = ev.StatusChanged(TaskStatus.COMPLETED, TaskStatus.RUNNING)


@pytest.fixture
async def space() -> AsyncIterator[tuple[str, str]]:
    """A key prefix and a client name of the test's own."""
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    yield prefix, f"agentd-test-{secrets.token_hex(4)}"
    admin = redis.Redis.from_url(REDIS_URL)
    await drop_prefix(admin, prefix)
    await admin.aclose()


def _store(connections: RedisConnections, prefix: str, poll: float = 2.0) -> RedisTaskStore:
    return RedisTaskStore(
        connections.calls,
        prefix=prefix,
        subscriptions=connections.subscriptions,
        poll_seconds=poll,
    )


async def _connections_named(name: str) -> int:
    admin = redis.Redis.from_url(REDIS_URL)
    try:
        clients = await admin.client_list()
    finally:
        await admin.aclose()
    return sum(1 for c in clients if str(c.get("name", "")).startswith(name))


async def test_many_followers_share_a_bounded_pool(space: tuple[str, str]) -> None:
    prefix, name = space
    connections = RedisConnections(RedisOptions(REDIS_URL, max_connections=4, client_name=name))
    store = _store(connections, prefix)
    try:
        tasks = [f"task_{n}" for n in range(20)]
        for task_id in tasks:
            await store.create(Task(task_id=task_id, tenant="acme", owner="a", goal="t"))

        async def follow(task_id: str) -> list[int]:
            return [e.sequence async for e in store.read_events("acme", task_id)]

        followers = [asyncio.create_task(follow(t)) for t in tasks for _ in range(10)]
        await asyncio.sleep(0.3)  # every follower is waiting on its empty log
        peak = await _connections_named(name)

        async def write(task_id: str) -> None:
            for i in range(30):
                await store.append_event(task_id, "0" * 32, ev.TextDelta("s", str(i)))
            await store.append_event(task_id, "0" * 32, DONE)

        await asyncio.gather(*(write(t) for t in tasks))
        async with asyncio.timeout(20):
            logs = await asyncio.gather(*followers)
        peak = max(peak, await _connections_named(name))
    finally:
        await connections.close()
    assert all(log == list(range(1, 32)) for log in logs)
    assert len(logs) == 200
    assert peak <= 4 + 3, f"{peak} connections for 200 streams"


async def test_a_follower_on_another_replica_is_woken_through_pub_sub(
    space: tuple[str, str],
) -> None:
    prefix, name = space
    writer_side = RedisConnections(RedisOptions(REDIS_URL, client_name=f"{name}-a"))
    reader_side = RedisConnections(RedisOptions(REDIS_URL, client_name=f"{name}-b"))
    # A poll long enough that only a pub/sub notification can wake the reader in time.
    writer, reader = _store(writer_side, prefix), _store(reader_side, prefix, poll=60.0)
    try:
        await writer.create(Task(task_id="task_x", tenant="acme", owner="a", goal="t"))
        received: list[int] = []

        async def follow() -> None:
            async for event in reader.read_events("acme", "task_x"):
                received.append(event.sequence)

        follower = asyncio.create_task(follow())
        await asyncio.sleep(0.3)
        for i in range(5):
            await writer.append_event("task_x", "0" * 32, ev.TextDelta("s", str(i)))
            await asyncio.sleep(0.05)
        await writer.append_event("task_x", "0" * 32, DONE)
        async with asyncio.timeout(10):
            await follower
    finally:
        await writer_side.close()
        await reader_side.close()
    assert received == [1, 2, 3, 4, 5, 6]


async def test_an_append_sent_again_is_not_applied_twice(space: tuple[str, str]) -> None:
    """The client resends a pipeline after a connection error: the token recognises it."""
    prefix, name = space
    connections = RedisConnections(RedisOptions(REDIS_URL, client_name=name))
    store = _store(connections, prefix)
    try:
        await store.create(Task(task_id="task_y", tenant="acme", owner="a", goal="t"))
        appends = store._appends  # the pipeline's script, called as a resend would
        keys = [f"{prefix}task:task_y", f"{prefix}events:task_y"]
        args: list[str | int] = ["{}", "0", 60, "token-1", f"{prefix}grew:task_y"]
        script = connections.calls.register_script(appends._script.script)
        first = await script(keys=keys, args=args)
        again = await script(keys=keys, args=args)
        other = await script(keys=keys, args=[*args[:3], "token-2", *args[4:]])
        length = await connections.calls.xlen(keys[1])
    finally:
        await connections.close()
    assert (first, again, other) == (1, 1, 2)
    assert length == 2


async def test_a_create_sent_again_succeeds_and_a_second_task_is_refused(
    space: tuple[str, str],
) -> None:
    prefix, name = space
    connections = RedisConnections(RedisOptions(REDIS_URL, client_name=name))
    store = _store(connections, prefix)
    try:
        task = Task(task_id="task_z", tenant="acme", owner="a", goal="t")
        await store.create(task)
        keys = [f"{prefix}task:task_z"]
        create = connections.calls.register_script(store._create.script)
        token = await connections.calls.hget(keys[0], "created")
        assert token is not None
        # What the client resends after a connection error: the same arguments.
        assert await create(keys=keys, args=["acme", "pending", "{}", token]) == 1
        with pytest.raises(ValueError, match="taken"):
            await store.create(task)  # a new create of the same id
    finally:
        await connections.close()


async def test_appends_of_many_tasks_share_round_trips_and_a_cancelled_one_costs_none(
    space: tuple[str, str],
) -> None:
    """Appends of 50 tasks at once go out in a few pipelines, not 50 commands; a caller
    cancelled while its pipeline is in flight takes no other task's append with it."""
    prefix, name = space
    connections = RedisConnections(RedisOptions(REDIS_URL, client_name=name))
    store = _store(connections, prefix)
    ids = [f"task_{i:02d}" for i in range(50)]
    sends: list[int] = []
    appends = store._appends
    send = appends._send

    async def counted(batch: list[Any]) -> list[Any]:
        sends.append(len(batch))
        return await send(batch)

    appends._send = counted  # type: ignore[method-assign]
    try:
        for task_id in ids:
            await store.create(Task(task_id=task_id, tenant="acme", owner="a", goal="t"))
        calls = [
            asyncio.ensure_future(store.append_event(t, "0" * 32, ev.TextDelta("s", "x")))
            for t in ids
        ]
        await asyncio.sleep(0)  # every append is queued; the first one's send is in flight
        calls[0].cancel()  # the caller sending
        calls[1].cancel()  # a caller waiting for the next pipeline
        results = await asyncio.gather(*calls, return_exceptions=True)
        lengths = [await connections.calls.xlen(f"{prefix}events:{t}") for t in ids]
    finally:
        await connections.close()
    assert [type(r).__name__ for r in results[:2]] == ["CancelledError"] * 2, results[:2]
    assert [r.sequence for r in results[2:]] == [1] * 48  # type: ignore[union-attr]
    assert sum(sends) == 50  # every append sent once
    assert len(sends) < 25  # in pipelines of several
    assert lengths[2:] == [1] * 48


async def test_a_task_cancelled_during_a_redis_command_is_always_cancelled(
    space: tuple[str, str],
) -> None:
    """Cancelled at any point of a command (taking a connection, writing, reading), the
    task ends cancelled: a write bounded by `wait_for` lost cancellations on Python 3.11,
    and the task went on as if it had not been cancelled. A command whose reply is slow
    (a script keeping Redis busy 5 ms) is cancelled at many points of its read, where the
    cancelled caller finishes the reply before its cancellation ends."""
    prefix, name = space
    connections = RedisConnections(RedisOptions(REDIS_URL, client_name=name))
    quick: list[str] = []
    slow: list[str] = []
    try:
        await connections.calls.ping()
        for outcomes, command in (
            (quick, lambda: connections.calls.hmget(f"{prefix}none", ["a"])),
            (slow, lambda: connections.calls.eval(SPIN, 0, 0.005)),
        ):
            for turns in range(12):
                call = asyncio.ensure_future(command())
                for _ in range(turns):
                    await asyncio.sleep(0)
                if call.cancel():  # it had not ended yet
                    ended = await asyncio.gather(call, return_exceptions=True)
                    outcomes.append(type(ended[0]).__name__)
        await connections.calls.ping()  # the pool is still usable
    finally:
        await connections.close()
    # A quick command on a kept connection ends within a few turns: cancelled before it
    # started and at least once on its way; the slow one at every turn tried.
    assert len(quick) >= 2
    assert len(slow) == 12
    assert set(quick + slow) == {"CancelledError"}, (quick, slow)


async def test_a_reader_at_the_end_of_the_log_is_handed_this_process_s_appends(
    space: tuple[str, str],
) -> None:
    """A reader whose read came back short is at the end of the log: the events this
    process appends next are handed to it, not read back from Redis one read each."""
    prefix, name = space
    connections = RedisConnections(RedisOptions(REDIS_URL, client_name=name))
    store = _store(connections, prefix)
    reads = 0
    xrange = connections.calls.xrange

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal reads
        reads += 1
        return await xrange(*args, **kwargs)

    connections.calls.xrange = counted  # type: ignore[method-assign]
    try:
        await store.create(Task(task_id="task_h", tenant="acme", owner="a", goal="t"))

        async def write() -> None:
            for i in range(200):
                await store.append_event("task_h", "0" * 32, ev.TextDelta("s", str(i)))
            await store.append_event("task_h", "0" * 32, DONE)

        writer = asyncio.create_task(write())
        sequences = [e.sequence async for e in store.read_events("acme", "task_h")]
        await writer
    finally:
        await connections.close()
    assert sequences == list(range(1, 202))
    assert reads <= 5, reads
