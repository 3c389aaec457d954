"""The tasks both front doors serve, over the engine: a caller's tasks a page at a time,
a task's events (as far as its log goes, or following it), and the conversation a new
task runs in when its caller names none.

AgentService's task handler (`server.rpcs.tasks`) and A2A's request handler
(`server.a2a.handler`) call this one object, so that listing and reading a task's log
are written once; a page comes cut, with its next cursor, from the engine and history.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

from agent.conversations.service import Conversations
from agent.engine import Engine
from agent.feed import TaskFeed
from core.identity import Principal
from records.events import TaskEvent
from records.paging import Page, TimeCursor
from records.tasks import Task, TaskQuery
from stores.idempotency.base import IdempotencyStore, scoped_key


class TaskService:
    """Reading tasks for a front door; starting, finding and moving them on is the
    engine's (`Engine`), which the front doors call as they are."""

    def __init__(
        self,
        engine: Engine,
        feed: TaskFeed,
        conversations: Conversations,
        keys: IdempotencyStore,
        *,
        key_ttl_seconds: float,
    ) -> None:
        self._engine = engine
        self._feed = feed
        self._conversations = conversations
        self._keys = keys
        self._key_ttl = key_ttl_seconds

    async def page(self, query: TaskQuery) -> Page[Task, TimeCursor]:
        """A page of the caller's tasks matching `query` (at most `query.limit`, after
        `query.after`), newest first, unfinished ones in their live state. Its cursor is
        set whenever more may follow: after a full page, and after a short one when the
        engine stopped reading the history before its end (`Engine.list_tasks`)."""
        return await self._engine.list_tasks(query)

    def live(self, tenant: str, task_id: str, after: int = 0) -> AsyncIterator[TaskEvent]:
        """The task's events after sequence `after`, then each new one until it ends."""
        return self._feed.live(tenant, task_id, after)

    def resumed(self, tenant: str, task_id: str, after: int) -> AsyncIterator[TaskEvent]:
        """`live`, for a caller coming back (`TaskFeed.resumed`: a task the live store let
        go ends the feed, or says its events expired)."""
        return self._feed.resumed(tenant, task_id, after)

    async def log(self, task: Task) -> list[TaskEvent]:
        """The task's log so far, up to its `last_sequence` (never waits for more)."""
        found: list[TaskEvent] = []
        if task.last_sequence == 0:
            return found
        async for event in self._feed.live(task.tenant, task.task_id):
            found.append(event)
            if event.sequence >= task.last_sequence or event.terminal:
                break
        return found

    async def conversation_once(
        self, caller: Principal, kind: str, request_id: str, title: str, labels: Mapping[str, str]
    ) -> str:
        """The id of the conversation made for the caller's request `request_id` (of
        `kind`): made by the first call, the same one for a retry of the request (a
        conversation a concurrent retry made meanwhile is deleted)."""
        key = scoped_key(kind, caller.tenant, caller.id, request_id)
        made = await self._conversations.create(caller, title, labels)
        earlier = await self._keys.reserve(key, "", made.conversation_id, self._key_ttl)
        if earlier is None:
            return made.conversation_id
        await self._conversations.delete(caller, made.conversation_id)
        return earlier
