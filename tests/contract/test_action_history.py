"""The ActionHistoryStore contract (stores/action_history/base.py), in memory, on SQLite and
on the machine's PostgreSQL: a tenant's entries oldest first (by time, then task, then
entry id), a page at a time; filtered by task and by task tree; nothing of another tenant;
a step recorded again (by this replica or another) kept once, as first recorded. Every
backend lists exactly what `HistoryQuery.matches` says, in the same order.

On SQL each `replica` is a store on a database (engine and writer) of its own, as on a
replica of its own, so repeated steps are decided by the database, not by one writer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from records.inbox.history import (
    ActionHistoryEntry,
    HistoryQuery,
    entry_cursor,
    entry_id,
    entry_of,
    entry_order,
)
from records.inbox.steps import DEADLINE_ACTOR, ActionStep, ActionStepKind
from records.paging import TimeKeyCursor
from records.waits import Wait, WaitKind
from stores.action_history.base import ActionHistoryStore
from stores.action_history.memory import InMemoryActionHistory
from stores.action_history.sql import SqlActionHistory
from stores.sql.database import Database
from stores.sql.engine import create_engine, migrate
from tests.contract.conftest import SQL_BACKENDS, empty_database

NOW = datetime(2026, 12, 9, 9, 0, tzinfo=UTC)
Replicas = Callable[[], ActionHistoryStore]
"""replica(): the history of another replica on the same database."""


def at(seconds: float) -> datetime:
    return NOW + timedelta(seconds=seconds)


def a_step(
    task_id: str = "task-1",
    slot: str = "call_1",
    step: ActionStepKind = ActionStepKind.OPENED,
    time: datetime = NOW,
    **fields: Any,
) -> ActionStep:
    """A step of an approval's wait (`fields` are the wait's; `actor`, `outcome` the step's)."""
    actor, outcome = fields.pop("actor", ""), fields.pop("outcome", "")
    values: dict[str, Any] = {"kind": WaitKind.APPROVAL, "created_at": NOW, **fields}
    wait = Wait(tenant=values.pop("tenant", "acme"), task_id=task_id, slot=slot, **values)
    return ActionStep(step, wait, time, actor, outcome)


def an_entry(*args: Any, **fields: Any) -> ActionHistoryEntry:
    return entry_of(a_step(*args, **fields))


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def replica(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Replicas]:
    if request.param == "memory":
        store = InMemoryActionHistory()
        yield lambda: store
        return
    async with empty_database(request.param, tmp_path) as (url, schema):
        await migrate(url, schema)
        databases: list[Database] = []

        def shared() -> ActionHistoryStore:
            database = Database(create_engine(url, schema=schema))
            databases.append(database)
            return SqlActionHistory(database)

        try:
            yield shared
        finally:
            for database in databases:
                await database.close()


@pytest.fixture
def history(replica: Replicas) -> ActionHistoryStore:
    return replica()


async def every_page(store: ActionHistoryStore, asked: HistoryQuery) -> list[list[str]]:
    """The request ids of each page, following the cursors to the end."""
    pages: list[list[str]] = []
    after: TimeKeyCursor | None = None
    for _ in range(100):
        page = await store.list(replace(asked, after=after))
        pages.append([e.request_id for e in page.items])
        if page.next is None:
            return pages
        assert len(page.items) == asked.limit  # only a full page has a next
        after = page.next
    raise AssertionError("the pages never ended")


async def test_entries_oldest_first_then_by_task_and_entry_and_every_field_kept(
    history: ActionHistoryStore,
) -> None:
    plus_two = timezone(timedelta(hours=2))
    deadline = at(600).astimezone(plus_two)
    recorded = [
        an_entry("t2", "c4", time=at(5)),
        an_entry("t1", "c3", time=at(5).astimezone(plus_two)),  # same moment: by task
        an_entry("t9", "c1", ActionStepKind.ANSWERED, at(1), actor="bob", outcome="approved"),
        an_entry(
            "t3",
            "question:c2",
            time=at(3),
            kind=WaitKind.QUESTION,
            root_task_id="t0",
            agent="support@2",
            tool_name="ask_user",
            roles=("finance", "ops"),
            deadline_at=deadline,
            detail="Which account?",  # what is asked is not kept
        ),
        an_entry("t4", "c5", ActionStepKind.TIMED_OUT, at(9), actor=DEADLINE_ACTOR, outcome="x"),
    ]
    await history.record(recorded)
    expected = sorted(recorded, key=entry_order)
    assert [e.request_id for e in expected] == ["c1", "question:c2", "c3", "c4", "c5"]
    page = await history.list(HistoryQuery("acme"))
    assert page.items == tuple(expected)  # every field as recorded
    assert page.next is None
    question = page.items[1]
    assert (question.root_task_id, question.roles, question.deadline_at) == (
        "t0",
        ("finance", "ops"),
        deadline,
    )
    assert question.step is ActionStepKind.OPENED
    assert question.wait_kind is WaitKind.QUESTION
    same_moment = [e for e in page.items if e.time == at(5)]
    assert [e.task_id for e in same_moment] == ["t1", "t2"]


async def test_paging_across_pages_of_every_size(history: ActionHistoryStore) -> None:
    made = [an_entry(f"t{n % 3}", f"c{n:02}", time=at(n // 2)) for n in range(11)]
    await history.record(made[:6])
    await history.record(made[6:])
    expected = [e.request_id for e in sorted(made, key=entry_order)]
    for size in (1, 2, 3, 4, 10, 11, 12):
        pages = await every_page(history, HistoryQuery("acme", limit=size))
        assert [r for page in pages for r in page] == expected, size
        assert len(pages) == max(1, -(-11 // size)), size  # no empty page after a full one
    first = await history.list(HistoryQuery("acme", limit=4))
    assert first.next == entry_cursor(first.items[-1])


async def test_filters_by_task_and_by_tree(history: ActionHistoryStore) -> None:
    await history.record(
        [
            an_entry("lead", "c1", time=at(1)),  # a top task: its own tree's root
            an_entry("child", "c2", time=at(2), root_task_id="lead"),
            an_entry("child", "c3", time=at(3), root_task_id="lead"),
            an_entry("other", "c4", time=at(4)),
            an_entry("grandchild", "c5", time=at(5), root_task_id="lead"),
        ]
    )

    async def listed(**query: Any) -> list[str]:
        pages = await every_page(history, HistoryQuery("acme", limit=2, **query))
        return [r for page in pages for r in page]

    assert await listed(task_id="child") == ["c2", "c3"]
    assert await listed(root_task_id="lead") == ["c1", "c2", "c3", "c5"]
    assert await listed(task_id="child", root_task_id="lead") == ["c2", "c3"]
    assert await listed(task_id="child", root_task_id="other") == []
    assert await listed(task_id="nobody") == []
    assert await listed(root_task_id="other") == ["c4"]


async def test_nothing_of_another_tenant_is_listed(history: ActionHistoryStore) -> None:
    await history.record(
        [
            an_entry("t1", "c1", time=at(1)),
            an_entry("t2", "c2", time=at(2), tenant="globex"),
            an_entry("t2", "c3", time=at(3), tenant="globex", root_task_id="t1"),
        ]
    )
    assert [e.request_id for e in (await history.list(HistoryQuery("acme"))).items] == ["c1"]
    globex = await history.list(HistoryQuery("globex"))
    assert [e.request_id for e in globex.items] == ["c2", "c3"]
    assert (await history.list(HistoryQuery("acme", task_id="t2"))).items == ()
    assert (await history.list(HistoryQuery("acme", root_task_id="t1"))).items[0].tenant == ("acme")
    assert len((await history.list(HistoryQuery("acme", root_task_id="t1"))).items) == 1
    # a cursor made up from another tenant's entry only moves where acme's own list starts
    cursor = entry_cursor(globex.items[0])
    assert (await history.list(HistoryQuery("acme", after=cursor))).items == ()
    assert (await history.list(HistoryQuery("nobody"))).items == ()


async def test_a_step_recorded_again_is_kept_once_as_first_recorded(
    replica: Replicas,
) -> None:
    first, second = replica(), replica()
    opened = a_step("t1", "c1", deadline_at=at(600))
    await first.record([entry_of(opened)])
    again = replace(opened, time=at(30))  # the step taken again after a process died
    await second.record([entry_of(again), entry_of(again)])
    await asyncio.gather(*(r.record([entry_of(again)]) for r in (first, second) for _ in "abc"))
    kept = (await first.list(HistoryQuery("acme"))).items
    assert [(e.request_id, e.time) for e in kept] == [("c1", NOW)]
    # a reminder before another deadline, and the answer, are steps of their own
    later = replace(opened, kind=ActionStepKind.REMINDED, time=at(500))
    escalated = replace(
        opened,
        kind=ActionStepKind.REMINDED,
        wait=replace(opened.wait, deadline_at=at(1200)),
        time=at(1100),
    )
    answered = replace(opened, kind=ActionStepKind.ANSWERED, time=at(1150), actor="bob")
    await second.record([entry_of(s) for s in (later, escalated, answered)])
    await first.record([entry_of(later)])  # a reminder sent twice is one
    listed = (await second.list(HistoryQuery("acme"))).items
    assert [(e.step, e.time) for e in listed] == [
        (ActionStepKind.OPENED, NOW),
        (ActionStepKind.REMINDED, at(500)),
        (ActionStepKind.REMINDED, at(1100)),
        (ActionStepKind.ANSWERED, at(1150)),
    ]


async def test_recording_nothing_and_asking_for_no_entries(history: ActionHistoryStore) -> None:
    await history.record([])
    await history.record([an_entry()])
    assert (await history.list(HistoryQuery("acme", limit=0))).items == ()


def test_an_entry_is_the_step_without_what_was_asked() -> None:
    step = a_step(
        "t1",
        "call_7",
        ActionStepKind.TIMED_OUT,
        at(60),
        tool_name="files.write",
        agent="billing@3",
        owner="alice",
        roles=("finance",),
        detail='{"path": "/srv/secret.txt"}',
        deadline_at=at(60),
        actor=DEADLINE_ACTOR,
        outcome="denied",
    )
    entry = entry_of(step)
    assert entry == ActionHistoryEntry(
        entry_id=entry_id("acme", "t1", "call_7", ActionStepKind.TIMED_OUT, at(60)),
        tenant="acme",
        task_id="t1",
        root_task_id="t1",  # a top task is its own tree's root
        request_id="call_7",
        wait_kind=WaitKind.APPROVAL,
        step=ActionStepKind.TIMED_OUT,
        time=at(60),
        tool_name="files.write",
        agent="billing@3",
        actor=DEADLINE_ACTOR,
        outcome="denied",
        roles=("finance",),
        deadline_at=at(60),
    )
    assert "secret" not in repr(entry)
    # the id is of the step, not of when it was taken, nor of the deadline's time zone
    west = at(60).astimezone(timezone(timedelta(hours=-5)))
    moved = replace(step, time=at(90), wait=replace(step.wait, deadline_at=west))
    assert entry_of(moved).entry_id == entry.entry_id
    others = {
        entry_of(replace(step, kind=ActionStepKind.ANSWERED)).entry_id,
        entry_of(replace(step, wait=replace(step.wait, slot="call_8"))).entry_id,
        entry_of(replace(step, wait=replace(step.wait, task_id="t2"))).entry_id,
        entry_of(replace(step, wait=replace(step.wait, tenant="globex"))).entry_id,
        entry_of(replace(step, wait=replace(step.wait, deadline_at=None))).entry_id,
    }
    assert len(others) == 5
    assert entry.entry_id not in others
