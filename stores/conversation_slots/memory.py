"""Conversation slots kept in this process (one process, no replicas)."""

from __future__ import annotations

from collections import deque


class InMemoryConversationSlots:
    def __init__(self) -> None:
        self._holders: dict[str, str] = {}
        self._queues: dict[str, deque[str]] = {}

    def _blocker(self, key: str) -> str:
        queue = self._queues.get(key)
        return self._holders.get(key) or (queue[0] if queue else "")

    async def claim(self, key: str, task_id: str) -> str:
        if self._holders.get(key) == task_id:
            return ""
        blocker = self._blocker(key)
        if not blocker:
            self._holders[key] = task_id
        return blocker

    async def enqueue(self, key: str, task_id: str, *, first: bool = False, limit: int = 0) -> bool:
        queue = self._queues.setdefault(key, deque())
        if task_id in queue:
            queue.remove(task_id)
        elif limit and len(queue) >= limit:
            if not queue:
                del self._queues[key]
            return False
        if first:
            queue.appendleft(task_id)
        else:
            queue.append(task_id)
        return True

    async def take_turn(self, key: str, task_id: str) -> str:
        holder = self._holders.get(key)
        if holder:
            return "" if holder == task_id else holder
        queue = self._queues.get(key)
        if queue and queue[0] != task_id:
            return queue[0]
        if queue:
            queue.popleft()
            if not queue:
                del self._queues[key]
        self._holders[key] = task_id
        return ""

    async def release(self, key: str, task_id: str) -> None:
        if self._holders.get(key) == task_id:
            del self._holders[key]
        queue = self._queues.get(key)
        if queue is not None and task_id in queue:
            queue.remove(task_id)
            if not queue:
                del self._queues[key]

    async def holder(self, key: str) -> str:
        return self._holders.get(key, "")

    async def waiting(self, key: str) -> list[str]:
        return list(self._queues.get(key, ()))
