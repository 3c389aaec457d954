"""The schedule store contract, in memory, on SQLite and on the machine's PostgreSQL:
schedules per tenant, an update only on the revision read (every write's, the loop's
too), a claim that leases a due schedule to one replica until the lease ends, and one
run per `(schedule, due time)` whichever replica records it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.identity import Principal
from records.schedules.model import (
    RunState,
    Schedule,
    ScheduleRun,
    ScheduleState,
    TaskTemplate,
    Timing,
    TimingKind,
)
from stores.schedules.base import ScheduleExistsError, ScheduleStore
from stores.schedules.memory import MemoryScheduleStore
from stores.schedules.sql import SqlScheduleStore
from stores.sql.database import Database
from tests.contract.conftest import SQL_BACKENDS, migrated_database

T0 = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def stores(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[ScheduleStore, ScheduleStore]]:
    """Two stores over one database: two replicas."""
    if request.param == "memory":
        shared = MemoryScheduleStore()
        yield shared, shared
        return
    async with migrated_database(request.param, tmp_path) as database:
        other = Database(database.engine)
        try:
            yield SqlScheduleStore(database), SqlScheduleStore(other)
        finally:
            await other.writer.close()


def schedule(schedule_id: str = "s1", tenant: str = "acme", wake: datetime = T0) -> Schedule:
    return Schedule(
        schedule_id=schedule_id,
        tenant=tenant,
        timing=Timing(TimingKind.INTERVAL, interval_seconds=60, start=T0),
        task=TaskTemplate(agent="a", goal="g", context={"k": [1]}, labels={"x": "y"}),
        principal=Principal("alice", tenant, ("operator",)),
        etag="e1",
        revision="r1",
        next_due=wake,
        wake_at=wake,
        created_at=T0,
        updated_at=T0,
    )


async def test_create_get_list_per_tenant(stores: tuple[ScheduleStore, ScheduleStore]) -> None:
    one, two = stores
    await one.create(schedule("s1"))
    await one.create(schedule("s2", tenant="other"))
    assert await two.get("acme", "s1") == schedule("s1")
    assert await two.get("other", "s1") is None
    assert [s.schedule_id for s in await two.of_tenant("acme")] == ["s1"]
    with pytest.raises(ScheduleExistsError):
        await two.create(schedule("s1"))


async def test_replace_only_on_the_revision_read(
    stores: tuple[ScheduleStore, ScheduleStore],
) -> None:
    one, two = stores
    await one.create(schedule())
    changed = replace(schedule(), display_name="new", revision="r2")
    assert await two.replace(changed, "r1")
    assert not await one.replace(replace(changed, revision="r3"), "r1")
    assert await one.get("acme", "s1") == changed


async def test_a_due_schedule_is_claimed_by_one_replica_until_its_lease_ends(
    stores: tuple[ScheduleStore, ScheduleStore],
) -> None:
    one, two = stores
    await one.create(schedule(wake=T0))
    await one.create(schedule("later", wake=T0 + 60 * SECOND))
    claims = await asyncio.gather(
        one.claim(T0, "r1", T0 + 10 * SECOND, 10), two.claim(T0, "r2", T0 + 10 * SECOND, 10)
    )
    assert sorted(len(c) for c in claims) == [0, 1]
    assert [s.schedule_id for c in claims for s in c] == ["s1"]
    assert await one.claim(T0 + 5 * SECOND, "r3", T0 + 20 * SECOND, 10) == []
    taken = await two.claim(T0 + 10 * SECOND, "r3", T0 + 20 * SECOND, 10)
    assert [s.schedule_id for s in taken] == ["s1"]  # the lease ended: taken over


async def test_save_claimed_writes_and_releases_only_for_the_holder(
    stores: tuple[ScheduleStore, ScheduleStore],
) -> None:
    one, two = stores
    await one.create(schedule())
    [held] = await one.claim(T0, "r1", T0 + 10 * SECOND, 10)
    advanced = replace(held, next_due=T0 + 60 * SECOND, wake_at=T0 + 60 * SECOND)
    assert not await two.save_claimed(advanced, "r2")
    assert await two.save_claimed(advanced, "r1")
    assert await one.claim(T0 + SECOND, "r2", T0 + 10 * SECOND, 10) == []
    stored = await one.get("acme", "s1")
    assert stored is not None
    assert stored.wake_at == T0 + 60 * SECOND


async def test_a_changed_schedule_is_not_overwritten_by_its_claim(
    stores: tuple[ScheduleStore, ScheduleStore],
) -> None:
    one, two = stores
    await one.create(schedule())
    [held] = await one.claim(T0, "r1", T0 + 10 * SECOND, 10)
    paused = replace(held, state=ScheduleState.PAUSED, etag="e2", revision="r2")
    assert await two.replace(paused, "r1")
    assert not await one.save_claimed(replace(held, refusals=1), "r1")
    assert await two.get("acme", "s1") == paused


async def test_one_run_per_due_time(stores: tuple[ScheduleStore, ScheduleStore]) -> None:
    one, two = stores
    await one.create(schedule())
    run = ScheduleRun("s1", "acme", T0, RunState.PENDING, created_at=T0)
    added = await asyncio.gather(one.add_run(run), two.add_run(replace(run, reason="2")))
    assert sorted(added) == [False, True]
    started = replace(run, state=RunState.STARTED, task_id="t1")
    await two.update_run(started)
    assert await one.get_run("s1", T0) == started
    await one.add_run(ScheduleRun("s1", "acme", T0 + SECOND, RunState.STARTED, request_id="q"))
    assert [r.due_at for r in await two.runs("acme", "s1", 10)] == [T0 + SECOND, T0]
    found = await two.run_by_request("s1", "q")
    assert found is not None
    assert found.due_at == T0 + SECOND
    assert await two.sweep(T0 + 2 * SECOND, 1) == 1  # the oldest first
    assert [r.due_at for r in await one.runs("acme", "s1", 10)] == [T0 + SECOND]
    assert await two.delete("acme", "s1")
    assert await one.runs("acme", "s1", 10) == []


async def test_save_claimed_gives_a_new_revision_so_a_write_on_the_old_one_is_refused(
    stores: tuple[ScheduleStore, ScheduleStore],
) -> None:
    one, two = stores
    await one.create(schedule())
    [held] = await one.claim(T0, "r1", T0 + 10 * SECOND, 10)
    assert await two.save_claimed(replace(held, next_due=T0 + 60 * SECOND), "r1")
    saved = await one.get("acme", "s1")
    assert saved is not None
    assert saved.revision != "r1"
    assert saved.etag == "e1"  # the user's version: only a user's change makes it stale
    assert saved.next_due == T0 + 60 * SECOND
    stale = replace(schedule(), display_name="read before the loop wrote", revision="r9")
    assert not await two.replace(stale, "r1")  # it would put the old next due back
    assert await one.get("acme", "s1") == saved
