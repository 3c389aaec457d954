"""The durable path: events per second through the Redis event log vs the in-process store,
and the latency one event adds between the engine writing it and a follower reading it.

Both stores run the same workloads in one run: a writer appends EVENTS text
deltas to one task, then TASKS writers append at once (appends pipelined
across tasks), while a follower of each log reads it live (as StreamTaskEvents
does). Redis is the machine's server on 127.0.0.1:6379; the keys are removed
afterwards. Bounded in count.
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import time

import redis.asyncio as redis

from records import events as ev
from records.tasks import Task, TaskStatus
from stores.redis import RedisConnections, RedisOptions
from stores.tasks.base import TaskStore
from stores.tasks.memory import InMemoryTaskStore
from stores.tasks.redis import RedisTaskStore

EVENTS = 2_000
LATENCY_SAMPLES = 300
TASKS = 100
EVENTS_PER_TASK = 200
REDIS_URL = "redis://127.0.0.1:6379/0"


async def _throughput(store: TaskStore, task_id: str) -> float:
    await store.create(Task(task_id=task_id, tenant="bench", owner="bench", goal="bench"))

    async def write() -> None:
        for i in range(EVENTS):
            await store.append_event(task_id, "0" * 32, ev.TextDelta("s", f"chunk {i}"))
        await store.append_event(
            task_id, "0" * 32, ev.StatusChanged(TaskStatus.COMPLETED, TaskStatus.RUNNING)
        )

    start = time.perf_counter()
    writer = asyncio.create_task(write())
    count = sum([1 async for _ in store.read_events("bench", task_id)])
    await writer
    assert count == EVENTS + 1
    return count / (time.perf_counter() - start)


async def _concurrent(store: TaskStore, name: str) -> float:
    """Events/s over TASKS tasks appending at once, each log followed live."""
    ids = [f"{name}-{n}" for n in range(TASKS)]
    for task_id in ids:
        await store.create(Task(task_id=task_id, tenant="bench", owner="bench", goal="bench"))

    async def write(task_id: str) -> None:
        for i in range(EVENTS_PER_TASK):
            await store.append_event(task_id, "0" * 32, ev.TextDelta("s", f"chunk {i}"))
        await store.append_event(
            task_id, "0" * 32, ev.StatusChanged(TaskStatus.COMPLETED, TaskStatus.RUNNING)
        )

    async def follow(task_id: str) -> int:
        return sum([1 async for _ in store.read_events("bench", task_id)])

    start = time.perf_counter()
    followers = [asyncio.create_task(follow(t)) for t in ids]
    await asyncio.gather(*(write(t) for t in ids))
    counts = await asyncio.gather(*followers)
    assert counts == [EVENTS_PER_TASK + 1] * TASKS
    return sum(counts) / (time.perf_counter() - start)


async def _latency(store: TaskStore, task_id: str) -> list[float]:
    """Seconds from the start of an append to the follower holding the event."""
    await store.create(Task(task_id=task_id, tenant="bench", owner="bench", goal="bench"))
    sent: dict[int, float] = {}
    got: list[float] = []
    ready = asyncio.Event()

    async def follow() -> None:
        ready.set()
        async for event in store.read_events("bench", task_id):
            if event.terminal:
                return
            got.append(time.perf_counter() - sent[event.sequence])

    follower = asyncio.create_task(follow())
    await ready.wait()
    await asyncio.sleep(0.05)
    for i in range(1, LATENCY_SAMPLES + 1):
        sent[i] = time.perf_counter()
        await store.append_event(task_id, "0" * 32, ev.TextDelta("s", "x"))
        await asyncio.sleep(0.002)  # one event at a time: no batching hides the cost
    await store.append_event(
        task_id, "0" * 32, ev.StatusChanged(TaskStatus.COMPLETED, TaskStatus.RUNNING)
    )
    await follower
    return got


async def main() -> None:
    memory = InMemoryTaskStore()
    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-bench:{secrets.token_hex(4)}:"
    connections = RedisConnections(RedisOptions(REDIS_URL, client_name="agentd-bench"))
    durable = RedisTaskStore(
        connections.calls, prefix=prefix, subscriptions=connections.subscriptions
    )
    try:
        memory_rate = await _throughput(memory, "t1")
        redis_rate = await _throughput(durable, "t1")
        memory_many = await _concurrent(memory, "many")
        redis_many = await _concurrent(durable, "many")
        memory_lat = await _latency(memory, "t2")
        redis_lat = await _latency(durable, "t2")
    finally:
        keys = [k async for k in client.scan_iter(match=f"{prefix}*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()
        await connections.close()
    added = [r - m for r, m in zip(sorted(redis_lat), sorted(memory_lat), strict=False)]
    print("Event log: Redis Stream vs in-process store (writer and live follower, loopback)")
    print(
        f"  events/s, 1 task         in-process {memory_rate:,.0f}   Redis {redis_rate:,.0f}   "
        f"ratio {redis_rate / memory_rate:.3f}"
    )
    print(
        f"  events/s, {TASKS} tasks     in-process {memory_many:,.0f}   Redis {redis_many:,.0f}   "
        f"(target >= 5,000 through Redis)"
    )
    print(
        f"  write->read     in-process p50 {statistics.median(memory_lat) * 1000:.3f} ms   "
        f"Redis p50 {statistics.median(redis_lat) * 1000:.3f} ms"
    )
    added_ms = statistics.median(added) * 1000
    print(f"  durable path adds p50 {added_ms:.3f} ms per event (target <= 0.5 ms)")
