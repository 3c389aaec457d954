"""The retention contract (stores/retention/base.py) on SQLite and the machine's PostgreSQL:
finished tasks' records, artifact versions, the inbox's history and triggers' deliveries
past their time are swept in bounded batches, nothing of an unfinished task tree is, and
sweeps of several replicas at once share the work."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, text, update

from core.errors import TaskNotFoundError
from records.inbox.history import HistoryQuery, entry_of
from records.inbox.steps import ActionStep, ActionStepKind
from records.tasks import Task, TaskQuery, TaskStatus
from records.waits import Wait, WaitKind
from stores.action_history.sql import SqlActionHistory
from stores.artifacts.sql import SqlArtifactStore
from stores.history.sql import SqlTaskHistory
from stores.retention.sql import SqlActionHistoryEntries, SqlArtifactVersions, SqlTaskRecords
from stores.retention.sweeper import RetentionSweeper, Rule
from stores.sql.database import Database
from stores.sql.schema import artifacts, task_history, task_labels
from stores.triggers.sql import SqlTriggerStore
from tests.contract.conftest import SQL_BACKENDS, migrated_database

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


@pytest.fixture(params=SQL_BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    async with migrated_database(request.param, tmp_path) as made:
        yield made


def task(
    task_id: str,
    status: TaskStatus,
    ended: datetime,
    *,
    root: str = "",
    labels: dict[str, str] | None = None,
) -> Task:
    return Task(
        task_id=task_id,
        tenant="acme",
        owner="alice",
        goal="g",
        status=status,
        created_at=ended - timedelta(minutes=5),
        updated_at=ended,
        root_task_id=root or task_id,
        parent_task_id="" if not root or root == task_id else root,
        labels=labels or {},
    )


async def ids(database: Database) -> set[str]:
    async with database.engine.connect() as connection:
        return set((await connection.execute(select(task_history.c.task_id))).scalars())


async def label_rows(database: Database) -> set[str]:
    async with database.engine.connect() as connection:
        return set((await connection.execute(select(task_labels.c.task_id))).scalars())


async def test_finished_tasks_records_go_once_past_their_time(database: Database) -> None:
    history = SqlTaskHistory(database)
    old, recent = NOW - 3 * DAY, NOW - DAY / 2
    for made in (
        task("task_done", TaskStatus.COMPLETED, old, labels={"team": "a"}),
        task("task_failed", TaskStatus.FAILED, old),
        task("task_cancelled", TaskStatus.CANCELLED, old),
        task("task_recent", TaskStatus.COMPLETED, recent, labels={"team": "b"}),
        task("task_running", TaskStatus.RUNNING, old),
        task("task_waiting", TaskStatus.INPUT_REQUIRED, old),
        task("task_pending", TaskStatus.PENDING, old),
    ):
        await history.record(made)
    records = SqlTaskRecords(database)
    assert await records.sweep(NOW - DAY, 100) == 3
    assert await ids(database) == {"task_recent", "task_running", "task_waiting", "task_pending"}
    assert await label_rows(database) == {"task_recent"}  # the labels went with their task
    with pytest.raises(TaskNotFoundError):
        await history.get("acme", "task_done")
    listed = await history.list(TaskQuery("acme", "alice", labels={"team": "a"}))
    assert listed.items == ()
    assert await records.sweep(NOW - DAY, 100) == 0


async def test_a_finished_child_stays_while_the_root_of_its_tree_runs(database: Database) -> None:
    history = SqlTaskHistory(database)
    old = NOW - 3 * DAY
    await history.record(task("task_lead", TaskStatus.RUNNING, old))
    await history.record(task("task_child", TaskStatus.COMPLETED, old, root="task_lead"))
    await history.record(task("task_grandchild", TaskStatus.FAILED, old, root="task_lead"))
    records = SqlTaskRecords(database)
    assert await records.sweep(NOW - DAY, 100) == 0
    assert await ids(database) == {"task_lead", "task_child", "task_grandchild"}
    listed = await history.list(TaskQuery("acme", "alice", parent_task_id="task_lead"))
    assert {t.task_id for t in listed.items} == {"task_child", "task_grandchild"}

    await history.record(task("task_lead", TaskStatus.COMPLETED, NOW - DAY / 2))  # ends late
    assert await records.sweep(NOW - DAY, 100) == 2  # the children; the lead is recent
    assert await ids(database) == {"task_lead"}


async def test_sweeps_go_in_bounded_batches_oldest_first(database: Database) -> None:
    history = SqlTaskHistory(database)
    for n in range(5):
        await history.record(task(f"task_{n}", TaskStatus.COMPLETED, NOW - (10 - n) * DAY))
    records = SqlTaskRecords(database)
    assert await records.sweep(NOW, 2) == 2
    assert await ids(database) == {"task_2", "task_3", "task_4"}  # the two oldest went
    assert [await records.sweep(NOW, 2) for _ in range(3)] == [2, 1, 0]


async def write_artifacts(database: Database) -> SqlArtifactStore:
    store = SqlArtifactStore(database)
    for space in ("task_done", "task_running", "task_unknown"):
        await store.write("acme", space, "report", "text/plain", b"v1", space)
        await store.write("acme", space, "report", "text/plain", b"v2", space)
    await database.writer.execute(  # version 1 of each is old
        update(artifacts).where(artifacts.c.version == 1).values(created_at=NOW - 3 * DAY)
    )
    await database.writer.execute(
        update(artifacts).where(artifacts.c.version == 2).values(created_at=NOW - DAY / 2)
    )
    return store


async def test_artifact_versions_go_by_age_but_never_of_an_unfinished_tree(
    database: Database,
) -> None:
    history = SqlTaskHistory(database)
    await history.record(task("task_done", TaskStatus.COMPLETED, NOW - 3 * DAY))
    await history.record(task("task_running", TaskStatus.RUNNING, NOW - 3 * DAY))
    store = await write_artifacts(database)
    versions = SqlArtifactVersions(database)
    assert await versions.sweep(NOW - DAY, 100) == 2  # task_done's and task_unknown's v1
    assert await store.read("acme", "task_done", "report", 1) is None
    latest = await store.read("acme", "task_done", "report")
    assert latest is not None
    assert (latest.info.version, latest.content) == (2, b"v2")
    assert await store.read("acme", "task_running", "report", 1) is not None
    assert await store.read("acme", "task_unknown", "report", 1) is None
    assert await versions.sweep(NOW - DAY, 100) == 0
    assert await versions.sweep(NOW, 1) == 1  # bounded: one of the two v2s
    async with database.engine.connect() as connection:
        left = await connection.scalar(select(func.count()).select_from(artifacts))
    assert left == 3  # task_running's two, and one v2


async def test_the_sweeper_applies_each_rule_and_skips_those_kept_for_ever(
    database: Database,
) -> None:
    history = SqlTaskHistory(database)
    for n in range(7):
        await history.record(task(f"task_{n}", TaskStatus.COMPLETED, NOW - 3 * DAY))
    await history.record(task("task_recent", TaskStatus.COMPLETED, NOW - DAY / 2))
    await write_artifacts(database)
    forever = RetentionSweeper(
        [Rule(SqlTaskRecords(database), 0), Rule(SqlArtifactVersions(database), 0)]
    )
    assert forever.rules == []
    sweeper = RetentionSweeper(
        [Rule(SqlTaskRecords(database), DAY.total_seconds()),
         Rule(SqlArtifactVersions(database), 0)],
        batch=3,
        clock=lambda: NOW,
    )  # fmt: skip
    assert await sweeper.sweep() == {"task records": 7}  # in batches of 3, 3, 1
    assert await ids(database) == {"task_recent"}
    async with database.engine.connect() as connection:
        assert await connection.scalar(select(func.count()).select_from(artifacts)) == 6


async def test_replicas_sweeping_at_once_delete_each_record_once(
    database: Database, tmp_path: Path
) -> None:
    history = SqlTaskHistory(database)
    for n in range(40):
        await history.record(task(f"task_{n:02}", TaskStatus.COMPLETED, NOW - 3 * DAY))
    replicas = [SqlTaskRecords(database), SqlTaskRecords(Database(database.engine))]
    counts = await asyncio.gather(*(r.sweep(NOW, 7) for r in replicas for _ in range(4)))
    rest = [await replicas[0].sweep(NOW, 7) for _ in range(4)]
    assert sum(counts) + sum(rest) == 40
    assert await ids(database) == set()


@pytest.mark.parametrize("backend", [p for p in SQL_BACKENDS if not isinstance(p, str)])
async def test_on_postgresql_a_sweep_passes_over_rows_another_sweep_holds(
    backend: str, tmp_path: Path
) -> None:
    async with migrated_database(backend, tmp_path) as database:
        history = SqlTaskHistory(database)
        for n in range(6):
            made = task(f"task_{n}", TaskStatus.COMPLETED, NOW - (10 - n) * DAY)
            await history.record(replace(made, labels={"n": str(n)}))
        async with database.engine.connect() as holder:
            transaction = await holder.begin()
            await holder.execute(  # another replica's sweep, mid-transaction, holds the 2 oldest
                text(
                    "SELECT task_id FROM task_history ORDER BY updated_at LIMIT 2 "
                    "FOR UPDATE SKIP LOCKED"
                )
            )
            swept = await asyncio.wait_for(SqlTaskRecords(database).sweep(NOW, 3), 30)
            assert swept == 3  # the next three, without waiting for the held ones
            await transaction.rollback()
        assert await ids(database) == {"task_0", "task_1", "task_5"}
        assert await label_rows(database) == {"task_0", "task_1", "task_5"}


def a_step(task_id: str, slot: str, time: datetime, root: str = "") -> ActionStep:
    wait = Wait("acme", task_id, slot, WaitKind.APPROVAL, time, root_task_id=root or task_id)
    return ActionStep(ActionStepKind.OPENED, wait, time)


async def test_the_inbox_history_goes_by_age_but_never_of_an_unfinished_tree(
    database: Database,
) -> None:
    history = SqlTaskHistory(database)
    await history.record(task("task_done", TaskStatus.COMPLETED, NOW - 3 * DAY))
    await history.record(task("task_lead", TaskStatus.INPUT_REQUIRED, NOW - 3 * DAY))
    store = SqlActionHistory(database)
    old, recent = NOW - 3 * DAY, NOW - DAY / 2
    await store.record(
        [
            entry_of(a_step("task_done", "c1", old)),
            entry_of(a_step("task_done", "c2", recent)),
            entry_of(a_step("task_child", "c3", old, root="task_lead")),  # its tree runs
            entry_of(a_step("task_unknown", "c4", old)),  # no record: by age alone
            entry_of(a_step("task_unknown", "c5", old + DAY)),
        ]
    )
    entries = SqlActionHistoryEntries(database)

    async def left() -> list[str]:
        return [e.request_id for e in (await store.list(HistoryQuery("acme"))).items]

    assert await entries.sweep(NOW - DAY, 2) == 2  # bounded, oldest first
    assert await left() == ["c3", "c5", "c2"]
    assert [await entries.sweep(NOW - DAY, 2) for _ in range(2)] == [1, 0]
    assert await left() == ["c3", "c2"]
    await history.record(task("task_lead", TaskStatus.COMPLETED, NOW - DAY / 2))  # it ended
    sweeper = RetentionSweeper([Rule(entries, DAY.total_seconds())], clock=lambda: NOW)
    assert await sweeper.sweep() == {"inbox history entries": 1}
    assert await left() == ["c2"]


async def test_trigger_deliveries_go_by_when_they_were_delivered(database: Database) -> None:
    deliveries = SqlTriggerStore(database)
    for n in range(5):
        await deliveries.delivered("trg_a", f"msg_old_{n}", f"task_{n}", NOW - 8 * DAY)
    await deliveries.delivered("trg_a", "msg_new", "task_new", NOW - DAY)
    sweeper = RetentionSweeper(
        [Rule(deliveries, 7 * DAY.total_seconds())], batch=2, clock=lambda: NOW
    )
    assert await sweeper.sweep() == {"trigger deliveries": 5}  # in batches of 2, 2, 1
    assert await deliveries.delivery("trg_a", "msg_old_0") is None
    assert await deliveries.delivery("trg_a", "msg_new") == "task_new"
