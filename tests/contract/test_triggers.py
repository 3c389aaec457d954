"""The trigger store (`stores.triggers`): tenants apart, rotation, and each delivery kept
once per `(trigger, webhook-id)` however many replicas keep it at once, on memory, SQLite
and the machine's PostgreSQL; deliveries swept by when they were kept."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from records.triggers import Trigger
from stores.triggers.base import TriggerStore
from stores.triggers.memory import InMemoryTriggerStore
from stores.triggers.sql import SqlTriggerStore
from tests.contract.conftest import SQL_BACKENDS, migrated_database

T0 = datetime(2026, 12, 8, 1, 0, tzinfo=UTC)


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def triggers(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[TriggerStore]:
    if request.param == "memory":
        yield InMemoryTriggerStore()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlTriggerStore(database)


def made(trigger_id: str, tenant: str = "acme", minute: int = 0) -> Trigger:
    return Trigger(
        trigger_id=trigger_id,
        tenant=tenant,
        principal="alice",
        roles=("operator",),
        display_name="tickets",
        agent="support@2",
        goal="triage the ticket",
        context={"queue": "billing"},
        token_budget=500,
        spend_limit=2_500_000,
        timeout_seconds=30.0,
        labels={"team": "a"},
        secret="sealed-1",
        created_at=T0 + timedelta(minutes=minute),
    )


async def test_a_trigger_is_kept_whole_and_seen_by_its_tenant_only(
    triggers: TriggerStore,
) -> None:
    await triggers.create(made("trg_a"))
    assert await triggers.get("acme", "trg_a") == made("trg_a")
    assert await triggers.find("trg_a") == made("trg_a")
    assert await triggers.get("globex", "trg_a") is None
    assert not await triggers.delete("globex", "trg_a")
    assert (await triggers.list("globex", 10)).items == ()
    assert await triggers.delete("acme", "trg_a")
    assert await triggers.find("trg_a") is None
    assert not await triggers.delete("acme", "trg_a")


async def test_list_pages_oldest_first(triggers: TriggerStore) -> None:
    for n in range(5):
        await triggers.create(made(f"trg_{n}", minute=n))
    await triggers.create(made("trg_other", tenant="globex"))
    first = await triggers.list("acme", 3)
    assert [t.trigger_id for t in first.items] == ["trg_0", "trg_1", "trg_2"]
    rest = await triggers.list("acme", 3, first.next)
    assert [t.trigger_id for t in rest.items] == ["trg_3", "trg_4"]
    assert rest.next is None


async def test_rotate_keeps_the_previous_secret_until_its_time(triggers: TriggerStore) -> None:
    await triggers.create(made("trg_a"))
    until = T0 + timedelta(hours=1)
    assert await triggers.rotate("acme", "trg_a", "sealed-2", "sealed-1", until)
    found = await triggers.get("acme", "trg_a")
    assert found is not None
    assert (found.secret, found.previous_secret, found.previous_until) == (
        "sealed-2",
        "sealed-1",
        until,
    )
    assert not await triggers.rotate("globex", "trg_a", "x", "y", until)


async def test_a_delivery_is_kept_once_and_answers_its_first_task(
    triggers: TriggerStore,
) -> None:
    await triggers.create(made("trg_a"))
    assert await triggers.delivery("trg_a", "msg_1") is None
    kept = await asyncio.gather(
        *(triggers.delivered("trg_a", "msg_1", f"task_{n}", T0) for n in range(4))
    )
    assert len(set(kept)) == 1  # every replica answers the one kept first
    assert await triggers.delivery("trg_a", "msg_1") == kept[0]
    assert await triggers.delivered("trg_a", "msg_2", "task_9", T0) == "task_9"
    await triggers.refused("trg_a")
    found = await triggers.get("acme", "trg_a")
    assert found is not None
    assert (found.deliveries, found.refused, found.last_delivery_at) == (2, 1, T0)
    assert await triggers.delete("acme", "trg_a")
    assert await triggers.delivery("trg_a", "msg_1") is None


async def test_deliveries_are_swept_by_when_they_were_kept_oldest_first(
    triggers: TriggerStore,
) -> None:
    assert triggers.name == "trigger deliveries"
    await triggers.create(made("trg_a"))
    for minute in (2, 0, 1, 5):
        at = T0 + timedelta(minutes=minute)
        await triggers.delivered("trg_a", f"msg_{minute}", f"task_{minute}", at)
    cutoff = T0 + timedelta(minutes=3)
    assert await triggers.sweep(cutoff, 2) == 2  # a bounded batch: the two oldest
    assert await triggers.delivery("trg_a", "msg_0") is None
    assert await triggers.delivery("trg_a", "msg_1") is None
    assert await triggers.delivery("trg_a", "msg_2") == "task_2"
    assert await triggers.sweep(cutoff, 2) == 1
    assert await triggers.sweep(cutoff, 2) == 0
    assert await triggers.delivery("trg_a", "msg_5") == "task_5"  # not yet expired
    found = await triggers.get("acme", "trg_a")
    assert found is not None
    assert found.deliveries == 4  # the counters stay
