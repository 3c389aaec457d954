"""The conversation slots contract: in memory, and on the machine's Redis (shared by
replicas)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis

from stores.conversation_slots.base import ConversationSlots
from stores.conversation_slots.memory import InMemoryConversationSlots
from stores.conversation_slots.redis import RedisConversationSlots
from tests.contract.conftest import REDIS_URL, drop_prefix

KEY = "acme:conv_0123456789abcdef01234567"


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def slots(request: pytest.FixtureRequest) -> AsyncIterator[ConversationSlots]:
    if request.param == "memory":
        yield InMemoryConversationSlots()
        return
    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    try:
        yield RedisConversationSlots(client, prefix)
    finally:
        await drop_prefix(client, prefix)
        await client.aclose()


async def test_a_free_conversation_is_claimed_by_one_task(slots: ConversationSlots) -> None:
    assert await slots.claim(KEY, "t1") == ""
    assert await slots.claim(KEY, "t1") == ""  # its own claim again: still its
    assert await slots.claim(KEY, "t2") == "t1"
    assert await slots.holder(KEY) == "t1"
    assert await slots.holder("acme:other") == ""
    assert await slots.claim("acme:other", "t2") == ""  # conversations are separate


async def test_of_racing_claims_exactly_one_wins(slots: ConversationSlots) -> None:
    results = await asyncio.gather(*(slots.claim(KEY, f"t{n}") for n in range(8)))
    winners = [f"t{n}" for n, blocker in enumerate(results) if blocker == ""]
    assert len(winners) == 1
    assert all(blocker == winners[0] for blocker in results if blocker)


async def test_waiting_tasks_take_their_turns_in_order(slots: ConversationSlots) -> None:
    assert await slots.claim(KEY, "t1") == ""
    await slots.enqueue(KEY, "t2")
    await slots.enqueue(KEY, "t3")
    assert await slots.waiting(KEY) == ["t2", "t3"]
    assert await slots.take_turn(KEY, "t2") == "t1"  # the holder is in the way
    await slots.release(KEY, "t1")
    assert await slots.claim(KEY, "t9") == "t2"  # nobody jumps the queue
    assert await slots.take_turn(KEY, "t3") == "t2"
    assert await slots.take_turn(KEY, "t2") == ""
    assert await slots.take_turn(KEY, "t2") == ""  # idempotent
    assert (await slots.holder(KEY), await slots.waiting(KEY)) == ("t2", ["t3"])
    await slots.release(KEY, "t2")
    assert await slots.take_turn(KEY, "t3") == ""
    await slots.release(KEY, "t3")
    assert (await slots.holder(KEY), await slots.waiting(KEY)) == ("", [])


async def test_an_interrupting_task_goes_first(slots: ConversationSlots) -> None:
    await slots.claim(KEY, "t1")
    await slots.enqueue(KEY, "t2")
    await slots.enqueue(KEY, "t3", first=True)
    assert await slots.waiting(KEY) == ["t3", "t2"]
    await slots.enqueue(KEY, "t2", first=True)  # queued once, wherever it is put
    assert await slots.waiting(KEY) == ["t2", "t3"]


async def test_release_forgets_a_task_wherever_it_is(slots: ConversationSlots) -> None:
    await slots.claim(KEY, "t1")
    await slots.enqueue(KEY, "t2")
    await slots.enqueue(KEY, "t3")
    await slots.release(KEY, "t2")  # a waiting task cancelled
    assert await slots.waiting(KEY) == ["t3"]
    await slots.release(KEY, "t3-unknown")
    await slots.release(KEY, "t3")
    assert await slots.holder(KEY) == "t1"  # only the holder itself lets go of it
    await slots.release(KEY, "t1")
    assert await slots.claim(KEY, "t4") == ""


async def test_a_line_holds_as_many_as_its_limit(slots: ConversationSlots) -> None:
    assert await slots.claim(KEY, "t1") == ""
    assert await slots.enqueue(KEY, "t2", limit=2)
    assert await slots.enqueue(KEY, "t3", limit=2)
    assert not await slots.enqueue(KEY, "t4", limit=2)  # full: nothing changed
    assert not await slots.enqueue(KEY, "t4", first=True, limit=2)
    assert await slots.waiting(KEY) == ["t2", "t3"]
    assert await slots.enqueue(KEY, "t3", first=True, limit=2)  # one already in line moves
    assert await slots.waiting(KEY) == ["t3", "t2"]
    assert await slots.enqueue(KEY, "t5")  # no limit
    assert await slots.waiting(KEY) == ["t3", "t2", "t5"]
