"""ListTasks by live state: an unfinished task is listed (and filtered) by what it is now,
not by its history row; a page of matches is filled from further rows, its cursor set
only when another match follows, and when too many rows do not match, a short page says
where to go on."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from agent.scheduling import listing
from agent.scheduling.listing import list_live
from records.paging import TimeCursor
from records.tasks import Task, TaskQuery, TaskStatus
from stores.history.memory import InMemoryTaskHistory
from stores.tasks.memory import InMemoryTaskStore

START = datetime(2026, 1, 1, tzinfo=UTC)


async def _stored(
    history: InMemoryTaskHistory,
    store: InMemoryTaskStore,
    n: int,
    row: TaskStatus,
    live: TaskStatus | None,
) -> Task:
    """Task n (newer for a larger n), its history row `row`, its live state `live` (None:
    no longer in the live store)."""
    task = Task(task_id=f"task_{n:03d}", tenant="t", owner="o", goal="x", status=row,
                created_at=START + timedelta(seconds=n))  # fmt: skip
    await history.record(task)
    if live is not None:
        await store.create(replace(task, status=live))
    return task


def _query(*statuses: TaskStatus, limit: int = 3) -> TaskQuery:
    return TaskQuery(tenant="t", owner="o", statuses=frozenset(statuses), limit=limit)


async def test_unfinished_tasks_are_listed_by_their_live_state() -> None:
    history, store = InMemoryTaskHistory(), InMemoryTaskStore()
    queued_then_running = await _stored(history, store, 1, TaskStatus.PENDING, TaskStatus.RUNNING)
    waiting = await _stored(history, store, 2, TaskStatus.RUNNING, TaskStatus.INPUT_REQUIRED)
    ended = await _stored(history, store, 3, TaskStatus.RUNNING, TaskStatus.COMPLETED)
    gone = await _stored(history, store, 4, TaskStatus.COMPLETED, None)

    async def ids(*statuses: TaskStatus) -> list[str]:
        found = await list_live(history, store, _query(*statuses, limit=10))
        assert found.next is None
        return [t.task_id for t in found.items]

    assert await ids(TaskStatus.RUNNING) == [queued_then_running.task_id]
    assert await ids(TaskStatus.PENDING) == []
    assert await ids(TaskStatus.INPUT_REQUIRED) == [waiting.task_id]
    assert await ids(TaskStatus.COMPLETED) == [gone.task_id, ended.task_id]
    everything = await list_live(history, store, _query(limit=10))
    assert [t.status for t in everything.items] == [
        TaskStatus.COMPLETED, TaskStatus.COMPLETED, TaskStatus.INPUT_REQUIRED, TaskStatus.RUNNING
    ]  # fmt: skip


async def test_a_page_is_filled_from_further_rows_and_a_short_one_says_where_to_go_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    history, store = InMemoryTaskHistory(), InMemoryTaskStore()
    done = [await _stored(history, store, n, TaskStatus.COMPLETED, None) for n in range(2)]
    for n in range(2, 12):  # ten newer tasks running now: none of them completed
        await _stored(history, store, n, TaskStatus.RUNNING, TaskStatus.RUNNING)
    newest_first = [done[1].task_id, done[0].task_id]
    filled = await list_live(history, store, _query(TaskStatus.COMPLETED))
    assert ([t.task_id for t in filled.items], filled.next) == (newest_first, None)
    monkeypatch.setattr(listing, "MAX_SCANS", 2)  # two pages of three rows read at most
    short = await list_live(history, store, _query(TaskStatus.COMPLETED))
    assert short.items == ()
    assert short.next == TimeCursor(START + timedelta(seconds=6), "task_006")
    rest = await list_live(history, store, replace(_query(TaskStatus.COMPLETED), after=short.next))
    assert [t.task_id for t in rest.items] == newest_first
    assert rest.next is None  # its last scan reached the end of history: nothing follows


async def test_a_full_page_has_a_cursor_only_when_another_match_follows() -> None:
    history, store = InMemoryTaskHistory(), InMemoryTaskStore()
    for n in range(4):  # 0 and 2 completed; 1 and 3 running now
        done = n % 2 == 0
        live = None if done else TaskStatus.RUNNING
        await _stored(history, store, n, TaskStatus.COMPLETED if done else TaskStatus.RUNNING, live)
    newest = await list_live(history, store, _query(TaskStatus.COMPLETED, limit=1))
    assert [t.task_id for t in newest.items] == ["task_002"]
    assert newest.next == TimeCursor(START + timedelta(seconds=2), "task_002")
    both = await list_live(history, store, _query(TaskStatus.COMPLETED, limit=2))
    assert ([t.task_id for t in both.items], both.next) == (["task_002", "task_000"], None)
    unfiltered = await list_live(history, store, _query(limit=3))
    assert [t.task_id for t in unfiltered.items] == ["task_003", "task_002", "task_001"]
    assert unfiltered.next == TimeCursor(START + timedelta(seconds=1), "task_001")
    rest = await list_live(history, store, replace(_query(limit=3), after=unfiltered.next))
    assert ([t.task_id for t in rest.items], rest.next) == (["task_000"], None)
