"""The push-notification config store contract, on SQLite and the machine's PostgreSQL:
put/get/list/delete, one claimer at a time, the cursor moved only by the claim's holder,
expired claims taken over, finished configs never claimed again."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.keyring import KeyRing
from records.push_configs import PushConfig
from stores.push_configs.base import PushConfigStore
from stores.push_configs.sql import SqlPushConfigStore
from tests.contract.conftest import SQL_BACKENDS, migrated_database

NOW = datetime(2026, 11, 27, 1, 0, tzinfo=UTC)
LATER = NOW + timedelta(seconds=10)
CONFIG = PushConfig(
    "acme", "task_1", "hook", "http://127.0.0.1:9/in", "tok", "Bearer", "secret", "alice"
)


@pytest.fixture(params=SQL_BACKENDS)
async def configs(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[PushConfigStore]:
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlPushConfigStore(database, KeyRing([bytes(range(32))]))


async def test_put_get_list_delete(configs: PushConfigStore) -> None:
    await configs.put(CONFIG, NOW)
    await configs.put(PushConfig("acme", "task_1", "another", "http://127.0.0.1:9/b"), NOW)
    await configs.put(PushConfig("globex", "task_1", "hook", "http://127.0.0.1:9/c"), NOW)
    assert await configs.get("acme", "task_1", "hook") == CONFIG
    assert [c.config_id for c in await configs.of_task("acme", "task_1")] == ["another", "hook"]
    assert await configs.get("acme", "task_2", "hook") is None
    assert await configs.delete("acme", "task_1", "hook") is True
    assert await configs.delete("acme", "task_1", "hook") is False
    assert [c.config_id for c in await configs.of_task("acme", "task_1")] == ["another"]
    assert (await configs.get("globex", "task_1", "hook")) is not None


async def test_one_claimer_the_holder_advances_expired_claims_are_taken_over(
    configs: PushConfigStore,
) -> None:
    await configs.put(CONFIG, NOW)
    [held] = await configs.claim("replica-a", NOW, LATER, 10)
    assert held == CONFIG
    assert await configs.claim("replica-b", NOW, LATER, 10) == []  # held until LATER
    assert await configs.advance(held, "replica-a", 3, False, LATER) is True
    assert await configs.advance(held, "replica-b", 9, False, LATER) is False  # not its claim
    after = LATER + timedelta(seconds=1)
    [taken] = await configs.claim("replica-b", after, after + timedelta(seconds=10), 10)
    assert taken.delivered_through == 3  # delivery resumes after the cursor
    assert await configs.advance(taken, "replica-a", 4, False, LATER) is False  # lost it
    assert await configs.advance(taken, "replica-b", 5, True, LATER) is True
    gone = after + timedelta(days=1)
    assert await configs.claim("replica-c", gone, gone, 10) == []  # finished: never again
    stored = await configs.get("acme", "task_1", "hook")
    assert stored is not None
    assert (stored.delivered_through, stored.finished) == (5, True)


async def test_a_released_claim_is_free_at_once_and_put_keeps_the_cursor(
    configs: PushConfigStore,
) -> None:
    await configs.put(CONFIG, NOW)
    [held] = await configs.claim("replica-a", NOW, LATER, 10)
    await configs.advance(held, "replica-a", 2, False, LATER)
    await configs.release(held, "replica-a")
    [again] = await configs.claim("replica-b", NOW, LATER, 10)
    assert again.delivered_through == 2
    await configs.put(PushConfig("acme", "task_1", "hook", "http://127.0.0.1:9/new"), NOW)
    stored = await configs.get("acme", "task_1", "hook")
    assert stored is not None
    assert (stored.url, stored.delivered_through) == ("http://127.0.0.1:9/new", 2)
