"""The tasks service both front doors call: a page of `limit` tasks asked of the engine as
`limit` + 1, its next cursor after a full page, after a short page the engine stopped
early on, and none at the end of the history."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import cast

from agent.conversations.service import Conversations
from agent.engine import Engine
from agent.feed import TaskFeed
from agent.scheduling.listing import Listing
from records.paging import TimeCursor
from records.tasks import Task, TaskQuery
from server.services.tasks import TaskService
from stores.history.memory import InMemoryTaskHistory
from stores.idempotency.memory import InMemoryIdempotencyStore
from stores.tasks.memory import InMemoryTaskStore

START = datetime(2026, 1, 1, tzinfo=UTC)


def _task(n: int) -> Task:
    created = START + timedelta(seconds=n)
    return Task(task_id=f"task_{n}", tenant="t", owner="o", goal="x", created_at=created)


@dataclass
class _Engine:
    """The engine's `list_tasks`, answering what it was told to and noting each query."""

    listing: Listing
    asked: list[TaskQuery] = field(default_factory=list)

    async def list_tasks(self, query: TaskQuery) -> Listing:
        self.asked.append(query)
        return self.listing


def _service(engine: _Engine) -> TaskService:
    feed = TaskFeed(InMemoryTaskStore(), InMemoryTaskHistory())
    return TaskService(
        cast(Engine, engine),
        feed,
        cast(Conversations, None),
        InMemoryIdempotencyStore(),
        key_ttl_seconds=60,
    )


async def test_a_full_page_has_the_cursor_of_its_last_task() -> None:
    engine = _Engine(Listing([_task(3), _task(2), _task(1)]))
    after = (START + timedelta(seconds=9), "task_9")
    page = await _service(engine).page(TaskQuery("t", "o", limit=2, after=after))
    assert [t.task_id for t in page.items] == ["task_3", "task_2"]
    assert page.next == TimeCursor(START + timedelta(seconds=2), "task_2")
    assert [(q.limit, q.after) for q in engine.asked] == [(3, after)]


async def test_a_short_page_the_engine_stopped_early_on_goes_on_where_it_stopped() -> None:
    stopped = (START + timedelta(seconds=1), "task_1")
    engine = _Engine(Listing([_task(5)], scanned_to=stopped))
    page = await _service(engine).page(TaskQuery("t", "o", limit=2))
    assert [t.task_id for t in page.items] == ["task_5"]
    assert page.next == TimeCursor(*stopped)


async def test_the_end_of_the_history_has_no_next_page() -> None:
    page = await _service(_Engine(Listing([_task(2), _task(1)]))).page(TaskQuery("t", "o", limit=2))
    assert len(page.items) == 2
    assert page.next is None
