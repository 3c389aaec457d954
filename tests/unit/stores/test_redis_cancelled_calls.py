"""A caller cancelled while it waits for a Redis reply: its connection goes back to the pool
in step (no reconnection, so the process never holds more than its pool's bound), the next
caller reads its own reply, and what cannot be kept in step (a pipeline, a command that
waits on the server, a reply that does not come in time) is dropped as before."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from stores.redis import RedisConnections, RedisOptions
from tests.contract.conftest import REDIS_URL

pytestmark = pytest.mark.redis

SPIN = "local t = redis.call('TIME') local stop = t[1] * 1e6 + t[2] + tonumber(ARGV[1]) * 1e6 \
while true do t = redis.call('TIME') if t[1] * 1e6 + t[2] >= stop then break end end return 1"
"""A script that keeps Redis busy for ARGV[1] seconds: a reply that is slow to come."""


@pytest.fixture
async def calls() -> AsyncIterator[Any]:
    name = f"agentd-test-{secrets.token_hex(4)}"
    connections = RedisConnections(RedisOptions(REDIS_URL, max_connections=1, client_name=name))
    yield connections.calls
    await connections.close()


@pytest.fixture
async def impatient() -> AsyncIterator[Any]:
    """As `calls`, waiting only 0.1 s for the reply of a cancelled command."""
    options = RedisOptions(
        REDIS_URL,
        max_connections=1,
        client_name="agentd-test-impatient",
        cancelled_reply_seconds=0.1,
    )
    connections = RedisConnections(options)
    yield connections.calls
    await connections.close()


async def _cancelled(call: Any, after: float = 0.05) -> None:
    task = asyncio.ensure_future(call)
    await asyncio.sleep(after)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def _in_step(calls: Any) -> None:
    """The connection answers this caller's own commands, not a reply owed to another."""
    key = f"agentd-test:{secrets.token_hex(6)}"
    await calls.set(key, "mine", ex=10)
    assert await calls.get(key) == b"mine"
    assert await calls.strlen(key) == 4


async def test_a_command_cancelled_while_its_reply_is_on_its_way_keeps_its_connection(
    calls: Any,
) -> None:
    before = await calls.client_id()
    await _cancelled(calls.eval(SPIN, 0, 0.3))
    await _in_step(calls)
    assert await calls.client_id() == before  # the same connection: no reconnection


async def test_a_reply_that_does_not_come_in_time_costs_the_connection_not_the_next_caller(
    impatient: Any,
) -> None:
    calls = impatient
    before = await calls.client_id()
    await _cancelled(calls.eval(SPIN, 0, 0.5))
    await _in_step(calls)
    assert await calls.client_id() != before


async def test_a_cancelled_pipeline_drops_its_connection_and_the_next_caller_is_in_step(
    calls: Any,
) -> None:
    before = await calls.client_id()
    pipeline = calls.pipeline(transaction=False)
    pipeline.eval(SPIN, 0, 0.3)
    pipeline.get("agentd-test:absent")
    await _cancelled(pipeline.execute())
    await _in_step(calls)
    assert await calls.client_id() != before


async def test_a_cancelled_blocking_pop_drops_its_connection_so_the_server_gives_it_up(
    calls: Any,
) -> None:
    key = f"agentd-test:{secrets.token_hex(6)}"
    before = await calls.client_id()
    await _cancelled(calls.blpop([key], timeout=1))
    await calls.rpush(key, "kept")
    await asyncio.sleep(0.05)
    assert await calls.lrange(key, 0, -1) == [b"kept"]  # no pop finished for a gone caller
    await calls.delete(key)
    assert await calls.client_id() != before


async def test_many_cancelled_callers_reconnect_almost_never() -> None:
    # 16 callers on a pool of 8, 300 of them cancelled at random moments: each used to
    # cost a connection (and a moment with both sockets open).
    connections = RedisConnections(
        RedisOptions(REDIS_URL, max_connections=8, client_name="agentd-test-cancel")
    )
    pool = connections.calls.connection_pool
    opened: list[int] = []
    base = pool.connection_class
    connect: Any = base._connect  # redis-py's own, untyped

    async def counted(self: Any) -> None:
        opened.append(1)
        await connect(self)

    pool.connection_class = type("Counted", (base,), {"_connect": counted})
    key = f"agentd-test:{secrets.token_hex(6)}"

    async def caller() -> None:
        while True:
            await connections.calls.set(key, "v", ex=10)
            await connections.calls.get(key)

    callers = [asyncio.create_task(caller()) for _ in range(16)]
    try:
        for n in range(300):
            await asyncio.sleep(0.003)
            callers[n % 16].cancel()
            callers[n % 16] = asyncio.create_task(caller())
    finally:
        for task in callers:
            task.cancel()
        await asyncio.gather(*callers, return_exceptions=True)
        await connections.close()
    # A cancellation that lands while a command is being written, or while a connection is
    # being opened, still drops that connection; one that lands on a reply no longer does.
    assert len(opened) <= 8 + 12, len(opened)
