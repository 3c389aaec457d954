"""The push deliverer's edges: a config whose task is gone is finished (never claimed
again), and retries wait with exponential backoff and full jitter under the cap."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

from core.keyring import KeyRing
from records.push_configs import PushConfig
from server.services.push import PushDeliverer, backoff
from stores.push_configs.sql import SqlPushConfigStore
from stores.tasks.memory import InMemoryTaskStore
from tests.contract.conftest import migrated_database


async def test_a_config_whose_task_is_gone_is_finished(tmp_path: Path) -> None:
    async with migrated_database("sqlite", tmp_path) as database:
        configs = SqlPushConfigStore(database, KeyRing())  # a config without secrets
        config = PushConfig("acme", "task_gone", "hook", "http://127.0.0.1:9/hook")
        await configs.put(config, datetime.now(UTC))
        deliverer = PushDeliverer(
            configs, InMemoryTaskStore(), "replica-a", (), lease_seconds=1, poll_seconds=0.05
        )
        running = asyncio.create_task(deliverer.run())
        try:
            for _ in range(100):  # at most 5 s
                stored = await configs.get("acme", "task_gone", "hook")
                if stored is not None and stored.finished:
                    break
                await asyncio.sleep(0.05)
        finally:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
        assert stored is not None
        assert stored.finished
        later = datetime.now(UTC) + timedelta(days=1)
        assert await configs.claim("replica-b", later, later, 10) == []


def test_backoff_is_jittered_and_capped() -> None:
    waits = [backoff(attempt, 0.2, 30.0) for attempt in range(1, 40) for _ in range(20)]
    assert all(0 <= w <= 30.0 for w in waits)
    assert max(waits) > 15  # the cap is reached, not just approached
    first = [backoff(1, 0.2, 30.0) for _ in range(200)]
    assert max(first) <= 0.4
    assert len(set(first)) > 100  # spread, not one value
