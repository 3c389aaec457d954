"""The tasks service both front doors call: a page of tasks is the engine's, passed on
as it comes (its items and its next cursor), for the query the caller asked."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import cast

from agent.conversations.service import Conversations
from agent.engine import Engine
from agent.feed import TaskFeed
from records.paging import Page, TimeCursor
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

    page: Page[Task, TimeCursor]
    asked: list[TaskQuery] = field(default_factory=list)

    async def list_tasks(self, query: TaskQuery) -> Page[Task, TimeCursor]:
        self.asked.append(query)
        return self.page


def _service(engine: _Engine) -> TaskService:
    feed = TaskFeed(InMemoryTaskStore(), InMemoryTaskHistory())
    return TaskService(
        cast(Engine, engine),
        feed,
        cast(Conversations, None),
        InMemoryIdempotencyStore(),
        key_ttl_seconds=60,
    )


async def test_the_engine_s_page_is_passed_on_for_the_query_asked() -> None:
    following = TimeCursor(START + timedelta(seconds=2), "task_2")
    engine = _Engine(Page((_task(3), _task(2)), following))
    query = TaskQuery("t", "o", limit=2, after=TimeCursor(START + timedelta(seconds=9), "task_9"))
    page = await _service(engine).page(query)
    assert ([t.task_id for t in page.items], page.next) == (["task_3", "task_2"], following)
    assert engine.asked == [query]


async def test_the_last_page_has_no_next_cursor() -> None:
    page = await _service(_Engine(Page((_task(2), _task(1))))).page(TaskQuery("t", "o", limit=2))
    assert len(page.items) == 2
    assert page.next is None
