"""Backends for the contract suites: every interface runs against each of them.

Redis is the machine's real server on 127.0.0.1:6379 (never a mock); each
test gets a key prefix of its own and removes its keys afterwards.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis

from agent.memory_task_store import InMemoryTaskStore
from agent.redis_task_store import RedisTaskStore
from agent.task_store import TaskStore

REDIS_URL = "redis://127.0.0.1:6379/0"


async def drop_prefix(client: redis.Redis, prefix: str) -> None:
    keys = [key async for key in client.scan_iter(match=f"{prefix}*")]
    if keys:
        await client.delete(*keys)


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[TaskStore]:
    if request.param == "memory":
        yield InMemoryTaskStore()
        return
    client = redis.Redis.from_url(REDIS_URL)
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    try:
        yield RedisTaskStore(client, prefix=prefix, block_ms=100, retention_seconds=60)
    finally:
        await drop_prefix(client, prefix)
        await client.aclose()
