"""One running task per conversation, and the tasks waiting their turn.

A conversation (named by a key that holds its tenant and id) has at most one
holder, the task running in it, and a queue of task ids waiting, in order.
Every operation is atomic: of two callers racing for a free conversation
exactly one becomes its holder. Nothing here knows whether a task still lives:
the caller checks a blocker against the task store and `release`s a task that
has ended without letting go (its process died at the wrong moment).

`InMemoryConversationSlots` serves one process; `RedisConversationSlots` is
shared by replicas, so the rule holds across them.
"""

from __future__ import annotations

from typing import Protocol


class ConversationSlots(Protocol):
    async def claim(self, key: str, task_id: str) -> str:
        """Make `task_id` the holder when there is none and no task waits: returns "".
        Otherwise the task in the way: the holder, or the first task waiting."""
        ...

    async def enqueue(self, key: str, task_id: str, *, first: bool = False, limit: int = 0) -> bool:
        """Put `task_id` in the queue: last, or ahead of every task waiting; False (and
        nothing changed) when `limit` tasks (0: no limit) wait already."""
        ...

    async def take_turn(self, key: str, task_id: str) -> str:
        """Make `task_id` the holder when it is already, or when there is no holder and it
        is first in the queue (or the queue is empty): returns "". Otherwise the task it
        waits for: the holder, or the first task waiting."""
        ...

    async def release(self, key: str, task_id: str) -> None:
        """`task_id` ended: no longer the holder, nor waiting."""
        ...

    async def holder(self, key: str) -> str:
        """The task running in the conversation, or ""."""
        ...

    async def waiting(self, key: str) -> list[str]:
        """The tasks waiting, in order."""
        ...
