"""ListTasks by live state: an unfinished task is listed (and filtered) by what it is now,
not by its history row; a page of matches is filled from further rows, and when too many
rows do not match, a short page says where to go on."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from agent.scheduling import listing
from agent.scheduling.listing import list_live
from records.tasks import Task, TaskStatus
from stores.history.base import TaskQuery
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
        assert found.scanned_to is None
        return [t.task_id for t in found.tasks]

    assert await ids(TaskStatus.RUNNING) == [queued_then_running.task_id]
    assert await ids(TaskStatus.PENDING) == []
    assert await ids(TaskStatus.INPUT_REQUIRED) == [waiting.task_id]
    assert await ids(TaskStatus.COMPLETED) == [gone.task_id, ended.task_id]
    everything = await list_live(history, store, _query(limit=10))
    assert [t.status for t in everything.tasks] == [
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
    assert ([t.task_id for t in filled.tasks], filled.scanned_to) == (newest_first, None)
    monkeypatch.setattr(listing, "MAX_SCANS", 2)  # two pages of three rows read at most
    short = await list_live(history, store, _query(TaskStatus.COMPLETED))
    assert short.tasks == []
    assert short.scanned_to == (START + timedelta(seconds=6), "task_006")
    rest = await list_live(
        history, store, replace(_query(TaskStatus.COMPLETED), after=short.scanned_to)
    )
    assert [t.task_id for t in rest.tasks] == newest_first
    assert rest.scanned_to == (START, "task_000")  # its scans ran out: more may follow
    last = await list_live(
        history, store, replace(_query(TaskStatus.COMPLETED), after=rest.scanned_to)
    )
    assert (last.tasks, last.scanned_to) == ([], None)
