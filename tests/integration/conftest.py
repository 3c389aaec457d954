"""Fixtures for tests that run agentd server processes against the machine's services."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis

from tests.contract.conftest import REDIS_URL, drop_prefix
from tests.helpers import fresh_postgres_database


@pytest.fixture
async def prefix() -> AsyncIterator[str]:
    """A Redis key prefix of the test's own; its keys are removed afterwards."""
    value = f"agentd-test:{secrets.token_hex(6)}:"
    yield value
    client = redis.Redis.from_url(REDIS_URL)
    await drop_prefix(client, value)
    await client.aclose()


@pytest.fixture
async def database() -> AsyncIterator[str]:
    """The URL of a new database on the machine's PostgreSQL, dropped afterwards."""
    async with fresh_postgres_database() as url:
        yield url
