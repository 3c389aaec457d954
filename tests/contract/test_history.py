"""The TaskHistory contract on memory, SQLite and the machine's PostgreSQL."""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.plan import Plan, PlanStep
from agent.tasks import StopReason, Task, TaskFailure, TaskStatus, TokenUsage
from core.errors import TaskNotFoundError
from stores.history.base import TaskHistory, TaskQuery
from stores.history.memory import InMemoryTaskHistory
from stores.history.sql import SqlTaskHistory
from stores.sql.engine import head_revision
from tests.contract.conftest import SQL_BACKENDS, migrated_database


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def history(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[TaskHistory]:
    if request.param == "memory":
        yield InMemoryTaskHistory()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlTaskHistory(database)


def _finished(task_id: str = "task_1", tenant: str = "acme") -> Task:
    return Task(
        task_id=task_id,
        tenant=tenant,
        owner="alice",
        task="sum 😀 \x00 'quotes' \"and\" ; DROP TABLE task_history; --",
        context={"k": [1, 2], "__t": "x"},
        status=TaskStatus.FAILED,
        failure=TaskFailure("LLM_UNAVAILABLE", "down"),
        stop_reason=StopReason.ERROR,
        usage=TokenUsage(100, 20, 5),
        plan=Plan((PlanStep("s1", "one", tool="calculator", arguments={"expression": "1"}),)),
        last_sequence=12,
    )


async def test_record_and_get(history: TaskHistory) -> None:
    await history.record(_finished())
    got = await history.get("acme", "task_1")
    expected = _finished()
    assert (
        got.task,
        got.context,
        got.status,
        got.failure,
        got.usage,
        got.plan,
        got.last_sequence,
    ) == (
        expected.task,
        expected.context,
        expected.status,
        expected.failure,
        expected.usage,
        expected.plan,
        expected.last_sequence,
    )


async def test_other_tenants_and_unknown_ids(history: TaskHistory) -> None:
    await history.record(_finished())
    with pytest.raises(TaskNotFoundError):
        await history.get("globex", "task_1")
    with pytest.raises(TaskNotFoundError):
        await history.get("acme", "task_2")


async def test_recording_again_replaces(history: TaskHistory) -> None:
    await history.record(_finished())
    again = _finished()
    again.final_answer = "second"
    await history.record(again)
    assert (await history.get("acme", "task_1")).final_answer == "second"


async def test_list_newest_first_with_filters_and_cursor(history: TaskHistory) -> None:
    base = datetime(2026, 11, 1, tzinfo=UTC)
    for i in range(7):
        task = _finished(f"task_{i}")
        task.created_at = base + timedelta(minutes=i // 2)  # pairs share a timestamp
        task.status = TaskStatus.COMPLETED if i % 2 else TaskStatus.FAILED
        await history.record(task)
    await history.record(_finished("task_other", tenant="globex"))
    stranger = _finished("task_stranger")
    stranger.owner = "mallory"
    await history.record(stranger)

    query = TaskQuery(tenant="acme", owner="alice", limit=3)
    first = await history.list(query)
    assert [t.task_id for t in first] == ["task_6", "task_5", "task_4"]
    cursor = (first[-1].created_at, first[-1].task_id)
    second = await history.list(TaskQuery(tenant="acme", owner="alice", limit=3, after=cursor))
    assert [t.task_id for t in second] == ["task_3", "task_2", "task_1"]
    done = await history.list(
        TaskQuery(tenant="acme", owner="alice", statuses=frozenset({TaskStatus.COMPLETED}))
    )
    assert [t.task_id for t in done] == ["task_5", "task_3", "task_1"]
    window = await history.list(
        TaskQuery(
            tenant="acme",
            owner="alice",
            created_after=base + timedelta(minutes=1),
            created_before=base + timedelta(minutes=2),
        )
    )
    assert [t.task_id for t in window] == ["task_3", "task_2"]


@pytest.mark.postgres
async def test_replicas_migrating_at_once_do_not_collide() -> None:
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    from tests.contract.conftest import POSTGRES_URL
    from tests.helpers import ROOT

    schema = f"agentd_race_{secrets.token_hex(5)}"
    admin = create_async_engine(POSTGRES_URL)
    async with admin.begin() as connection:
        await connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    code = f"from stores.sql.engine import migrate_sync; migrate_sync({POSTGRES_URL!r}, {schema!r})"
    try:  # separate processes, as replicas are
        processes = [
            await asyncio.create_subprocess_exec(sys.executable, "-c", code, cwd=ROOT)
            for _ in range(4)
        ]
        codes = await asyncio.wait_for(asyncio.gather(*(p.wait() for p in processes)), 120)
        assert codes == [0, 0, 0, 0]
        async with admin.connect() as connection:
            version = await connection.execute(
                text(f'SELECT version_num FROM "{schema}".alembic_version')
            )
            assert [row[0] for row in version] == [head_revision()]
    finally:
        async with admin.begin() as connection:
            await connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()


async def test_list_filters_by_every_label_given(history: TaskHistory) -> None:
    base = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
    labelled = {
        "t1": {"team": "billing", "env": "prod"},
        "t2": {"team": "billing", "env": "staging"},
        "t3": {"team": "search", "env": "prod"},
        "t4": {},
    }
    for n, (task_id, labels) in enumerate(labelled.items()):
        task = Task(task_id=task_id, tenant="acme", owner="alice", task="x", labels=labels)
        task.created_at = base + timedelta(seconds=n)
        await history.record(task)
        await history.record(task)  # recorded again (each status change): labels unchanged
    other = Task(task_id="o1", tenant="beta", owner="alice", task="x", labels={"team": "billing"})
    await history.record(other)

    async def ids(**labels: str) -> list[str]:
        query = TaskQuery(tenant="acme", owner="alice", labels=labels)
        return [t.task_id for t in await history.list(query)]

    assert await ids(team="billing") == ["t2", "t1"]
    assert await ids(team="billing", env="prod") == ["t1"]
    assert await ids(env="prod") == ["t3", "t1"]
    assert await ids(team="nobody") == []
    assert await ids() == ["t4", "t3", "t2", "t1"]
    assert (await history.get("acme", "t1")).labels == {"team": "billing", "env": "prod"}
