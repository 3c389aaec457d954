"""The TaskHistory contract on memory, SQLite and the machine's PostgreSQL."""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections.abc import AsyncIterator, Awaitable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.errors import TaskNotFoundError
from records.agents.definition import AgentDefinition
from records.paging import Page, TimeCursor
from records.plan import Plan, PlanStep
from records.tasks import StopReason, Task, TaskFailure, TaskQuery, TaskStatus, TokenUsage
from stores.history.base import TaskHistory
from stores.history.memory import InMemoryTaskHistory
from stores.history.sql import SqlTaskHistory
from stores.sql.engine import head_revision
from tests.contract.conftest import SQL_BACKENDS, empty_database, migrated_database
from tests.paging import every_page, page_sizes


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
        goal="sum 😀 \x00 'quotes' \"and\" ; DROP TABLE task_history; --",
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
        got.goal,
        got.context,
        got.status,
        got.failure,
        got.usage,
        got.plan,
        got.last_sequence,
    ) == (
        expected.goal,
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
    assert [t.task_id for t in first.items] == ["task_6", "task_5", "task_4"]
    assert first.next == TimeCursor(first.items[-1].created_at, "task_4")
    second = await history.list(TaskQuery(tenant="acme", owner="alice", limit=3, after=first.next))
    assert [t.task_id for t in second.items] == ["task_3", "task_2", "task_1"]
    last = await history.list(TaskQuery(tenant="acme", owner="alice", limit=3, after=second.next))
    assert ([t.task_id for t in last.items], last.next) == (["task_0"], None)
    done = await history.list(
        TaskQuery(tenant="acme", owner="alice", statuses=frozenset({TaskStatus.COMPLETED}))
    )
    assert [t.task_id for t in done.items] == ["task_5", "task_3", "task_1"]
    window = await history.list(
        TaskQuery(
            tenant="acme",
            owner="alice",
            created_after=base + timedelta(minutes=1),
            created_before=base + timedelta(minutes=2),
        )
    )
    assert [t.task_id for t in window.items] == ["task_3", "task_2"]


@pytest.mark.parametrize("size", [1, 2, 5, 6])
async def test_every_page_of_a_list_is_read_once_ties_by_id(
    history: TaskHistory, size: int
) -> None:
    base = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
    made = []
    for n in range(5):  # t0 and t1 at one moment, t2 and t3 at the next: ties by id
        task = _run_as(f"t{n}", "support", 1, "", 0)
        task.created_at = base + timedelta(seconds=n // 2)
        task.labels = {"team": "a"}
        made.append(task)
        await history.record(task)
    other = _run_as("o1", "support", 1, "", 9)
    other.labels = {"team": "b"}
    await history.record(other)

    def read(after: TimeCursor | None) -> Awaitable[Page[Task, TimeCursor]]:
        query = TaskQuery("acme", "alice", limit=size, after=after, labels={"team": "a"})
        return history.list(query)

    pages = await every_page(read)
    assert [len(p) for p in pages] == page_sizes(5, size)
    assert [t.task_id for p in pages for t in p] == ["t4", "t3", "t2", "t1", "t0"]


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
        task = Task(task_id=task_id, tenant="acme", owner="alice", goal="x", labels=labels)
        task.created_at = base + timedelta(seconds=n)
        await history.record(task)
        await history.record(task)  # recorded again (each status change): labels unchanged
    other = Task(task_id="o1", tenant="beta", owner="alice", goal="x", labels={"team": "billing"})
    await history.record(other)

    async def ids(**labels: str) -> list[str]:
        query = TaskQuery(tenant="acme", owner="alice", labels=labels)
        return [t.task_id for t in (await history.list(query)).items]

    assert await ids(team="billing") == ["t2", "t1"]
    assert await ids(team="billing", env="prod") == ["t1"]
    assert await ids(env="prod") == ["t3", "t1"]
    assert await ids(team="nobody") == []
    assert await ids() == ["t4", "t3", "t2", "t1"]
    assert (await history.get("acme", "t1")).labels == {"team": "billing", "env": "prod"}


def _run_as(task_id: str, agent: str, version: int, conversation: str, n: int) -> Task:
    task = Task(task_id=task_id, tenant="acme", owner="alice", goal="x")
    task.agent = AgentDefinition(agent_id=agent, version=version) if agent else None
    task.conversation_id = conversation
    task.created_at = datetime(2026, 11, 26, 9, 0, tzinfo=UTC) + timedelta(seconds=n)
    return task


CONV_A, CONV_B = "conv_" + "a" * 24, "conv_" + "b" * 24


async def test_list_filters_by_agent_version_and_conversation(history: TaskHistory) -> None:
    tasks = [
        _run_as("t1", "support", 1, CONV_A, 1),
        _run_as("t2", "support", 2, "", 2),
        _run_as("t3", "billing", 1, CONV_A, 3),
        _run_as("t4", "", 0, CONV_B, 4),  # the default agent
        _run_as("t5", "support-bot", 1, "", 5),  # an id that starts like another
    ]
    for task in tasks:
        await history.record(task)
        task.status = TaskStatus.COMPLETED
        await history.record(task)  # recorded again when it ends: still found
    other = _run_as("o1", "support", 1, CONV_A, 6)
    other.tenant = "beta"
    await history.record(other)
    stranger = _run_as("s1", "support", 1, CONV_A, 7)
    stranger.owner = "mallory"
    await history.record(stranger)

    async def ids(**filters: object) -> list[str]:
        query = TaskQuery(tenant="acme", owner="alice", **filters)  # type: ignore[arg-type]
        return [t.task_id for t in (await history.list(query)).items]

    assert await ids(agent="support") == ["t2", "t1"]
    assert await ids(agent="support", agent_version=1) == ["t1"]
    assert await ids(agent="support", agent_version=3) == []
    assert await ids(agent="nobody") == []
    assert await ids(conversation_id=CONV_A) == ["t3", "t1"]
    assert await ids(conversation_id=CONV_B) == ["t4"]
    assert await ids(agent="support", conversation_id=CONV_A) == ["t1"]
    assert await ids(agent="billing", statuses=frozenset({TaskStatus.COMPLETED})) == ["t3"]
    assert await ids() == ["t5", "t4", "t3", "t2", "t1"]
    first = await history.list(TaskQuery(tenant="acme", owner="alice", agent="support", limit=1))
    rest = await history.list(
        TaskQuery(tenant="acme", owner="alice", agent="support", after=first.next)
    )
    assert [t.task_id for t in first.items + rest.items] == ["t2", "t1"]
    found = await history.get("acme", "t2")
    assert (found.agent, found.conversation_id) == (AgentDefinition("support", 2), "")


async def test_list_filters_by_parent_task(history: TaskHistory) -> None:
    top = _run_as("top", "lead", 1, "", 1)
    children = [_run_as(f"c{i}", "researcher", 1, "", 2 + i) for i in range(2)]
    grandchild = _run_as("g1", "writer", 1, "", 5)
    for child in children:
        child.parent_task_id, child.root_task_id, child.depth = "top", "top", 1
    grandchild.parent_task_id, grandchild.root_task_id, grandchild.depth = "c0", "top", 2
    for task in (top, *children, grandchild):
        await history.record(task)

    async def ids(**filters: object) -> list[str]:
        query = TaskQuery(tenant="acme", owner="alice", **filters)  # type: ignore[arg-type]
        return [t.task_id for t in (await history.list(query)).items]

    assert await ids(parent_task_id="top") == ["c1", "c0"]
    assert await ids(parent_task_id="c0") == ["g1"]
    assert await ids(parent_task_id="g1") == []
    found = await history.get("acme", "g1")
    assert (found.parent_task_id, found.root, found.depth) == ("c0", "top", 2)
    assert (await history.get("acme", "top")).root == "top"


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_upgrading_finds_the_agent_and_conversation_of_tasks_stored_before(
    kind: str, tmp_path: Path
) -> None:
    """Tasks recorded before the agent and conversation columns existed are listed by them
    once the database is upgraded, their stored form unchanged."""
    from alembic import command
    from sqlalchemy import column, insert, table

    from stores.history.sql import _row
    from stores.sql.database import Database
    from stores.sql.engine import alembic_config, create_engine

    before = [
        _run_as("t1", "support", 2, CONV_A, 1),
        _run_as("t2", "", 0, CONV_B, 2),
        _run_as("t3", "support", 1, "", 3),
    ]
    # 0010's columns, and 0011's (later still)
    new_columns = ("agent_id", "agent_version", "conversation_id", "parent_task_id", "root_task_id")
    rows = [{k: v for k, v in _row(task).items() if k not in new_columns} for task in before]
    old_history = table("task_history", *(column(name) for name in rows[0]))
    async with empty_database(kind, tmp_path) as (url, schema):
        await asyncio.to_thread(command.upgrade, alembic_config(url, schema), "0009")
        engine = create_engine(url, schema=schema)
        async with engine.begin() as connection:
            for row in rows:
                await connection.execute(insert(old_history).values(**row))
        await engine.dispose()
        await asyncio.to_thread(command.upgrade, alembic_config(url, schema), "head")
        database = Database(create_engine(url, schema=schema))
        try:
            history = SqlTaskHistory(database)

            async def ids(**filters: object) -> list[str]:
                query = TaskQuery(tenant="acme", owner="alice", **filters)  # type: ignore[arg-type]
                return [t.task_id for t in (await history.list(query)).items]

            assert await ids(agent="support") == ["t3", "t1"]
            assert await ids(agent="support", agent_version=2) == ["t1"]
            assert await ids(conversation_id=CONV_A) == ["t1"]
            assert await ids(conversation_id=CONV_B) == ["t2"]
            assert await ids() == ["t3", "t2", "t1"]
            assert (await history.get("acme", "t1")).agent == AgentDefinition("support", 2)
        finally:
            await database.close()


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_the_goal_keeps_its_column_and_a_row_stored_before_loads(
    kind: str, tmp_path: Path
) -> None:
    """The goal is kept in the column `task` (its name in the API: no migration renamed
    it), and a row recorded before the field was `goal` (its data with the goal under the
    key "task") is read back with its goal."""
    import json

    from sqlalchemy import select, update

    from records import serialization
    from stores.sql.schema import task_history

    task = _finished()
    task.goal = "what the caller asked"
    async with migrated_database(kind, tmp_path) as database:
        await SqlTaskHistory(database).record(task)
        row = task_history.c.task_id == "task_1"
        async with database.engine.connect() as connection:
            column = await connection.scalar(select(task_history.c.task).where(row))
        assert column == "what the caller asked"
        before = json.loads(serialization.dumps(task))
        assert before["task"] == task.goal  # the shape every version writes and reads
        assert "goal" not in before
        async with database.engine.begin() as connection:
            await connection.execute(
                update(task_history).where(row).values(data=json.dumps(before))
            )
        assert (await SqlTaskHistory(database).get("acme", "task_1")).goal == task.goal
