"""The ToolCache contract on memory and the machine's Redis."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import pytest
import redis.asyncio as redis

from stores.tool_cache.base import CachedResult, ToolCache
from stores.tool_cache.memory import InMemoryToolCache
from stores.tool_cache.redis import RedisToolCache
from tests.contract.conftest import REDIS_URL, drop_prefix


@dataclass
class Backend:
    cache: ToolCache
    put_raw: Callable[[str, str, bytes], Awaitable[None]]
    """Store a value as it is, bypassing the encoding (a damaged or foreign entry)."""


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    if request.param == "memory":
        memory = InMemoryToolCache()

        async def raw_memory(tenant: str, key: str, value: bytes) -> None:
            memory.put_raw(tenant, key, value.decode(errors="replace"), 60)

        yield Backend(memory, raw_memory)
        return
    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    cache = RedisToolCache(client, prefix)

    async def raw_redis(tenant: str, key: str, value: bytes) -> None:
        await client.set(cache.name(tenant, key), value, px=60_000)

    try:
        yield Backend(cache, raw_redis)
    finally:
        await drop_prefix(client, prefix)
        await client.aclose()


RESULT = CachedResult({"rows": [1, 2, {"x": None}], "ok": True}, "3 rows")


async def test_put_then_get_round_trips(backend: Backend) -> None:
    cache = backend.cache
    assert await cache.get("acme", "json_query/abc") is None
    await cache.put("acme", "json_query/abc", RESULT, 60)
    assert await cache.get("acme", "json_query/abc") == RESULT
    assert await cache.get("acme", "json_query/abd") is None


async def test_tenants_never_see_each_others_entries(backend: Backend) -> None:
    cache = backend.cache
    await cache.put("acme", "k", RESULT, 60)
    assert await cache.get("globex", "k") is None
    await cache.put("globex", "k", CachedResult("theirs", "theirs"), 60)
    assert await cache.get("acme", "k") == RESULT
    assert await cache.get("globex", "k") == CachedResult("theirs", "theirs")
    # a tenant whose name and key run together differently is still another entry
    await cache.put("acme:x", "y", CachedResult(1, "1"), 60)
    assert await cache.get("acme", "x:y") is None


async def test_an_entry_expires_after_its_time_to_live(backend: Backend) -> None:
    cache = backend.cache
    await cache.put("acme", "short", RESULT, 0.2)
    await cache.put("acme", "long", RESULT, 60)
    assert await cache.get("acme", "short") == RESULT
    await asyncio.sleep(0.35)
    assert await cache.get("acme", "short") is None
    assert await cache.get("acme", "long") == RESULT


async def test_a_put_replaces_the_entry_and_its_time_to_live(backend: Backend) -> None:
    cache = backend.cache
    await cache.put("acme", "k", RESULT, 0.2)
    newer = CachedResult([], "nothing")
    await cache.put("acme", "k", newer, 60)
    await asyncio.sleep(0.35)
    assert await cache.get("acme", "k") == newer


@pytest.mark.parametrize(
    "value",
    [b"not json", b'{"data": 1}', b'{"data": 1, "text": 2}', b"[1, 2]", b"\xff\xfe", b""],
    ids=["not-json", "no-text", "text-not-string", "not-object", "not-utf8", "empty"],
)
async def test_a_value_that_does_not_decode_is_a_miss(backend: Backend, value: bytes) -> None:
    await backend.put_raw("acme", "k", value)
    assert await backend.cache.get("acme", "k") is None
    await backend.cache.put("acme", "k", RESULT, 60)  # and a later put repairs it
    assert await backend.cache.get("acme", "k") == RESULT


async def test_the_memory_cache_forgets_the_least_recently_used() -> None:
    cache = InMemoryToolCache(capacity=2)
    await cache.put("t", "a", RESULT, 60)
    await cache.put("t", "b", RESULT, 60)
    assert await cache.get("t", "a") == RESULT  # a is now the most recently used
    await cache.put("t", "c", RESULT, 60)
    assert len(cache) == 2
    assert await cache.get("t", "b") is None
    assert await cache.get("t", "a") == RESULT
    assert await cache.get("t", "c") == RESULT
