"""The call slots of one MCP server, shared fairly between tenants.

A server takes at most `capacity` calls at once. One tenant may hold at most `per_key`
of them (capacity less a quarter, at least one), so that others always find room while
it floods; and when callers wait, a freed slot goes to the tenants in turn (the one that
waited longest among them first), never to whoever asks most. Waiting is bounded by the
caller's own timeout (a cancelled waiter leaves its place, and passes on a slot it was
just given). State is kept only for tenants holding or waiting for a slot.
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class FairSlots:
    """`capacity` slots, at most `per_key` of them for one key (a tenant) at a time."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.per_key = max(1, capacity - capacity // 4) if capacity > 1 else 1
        self._held: Counter[str] = Counter()
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        """Waiters by key; the keys in turn order (the next to serve first)."""

    @property
    def in_use(self) -> int:
        return sum(self._held.values())

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        """Hold one slot for `key` while the block runs."""
        if self._waiting or not self._free_for(key):
            waiter = asyncio.get_running_loop().create_future()
            self._waiting.setdefault(key, deque()).append(waiter)
            self._hand_on()  # those ahead may be at their share while slots are free
            try:
                await waiter
            except BaseException:
                if waiter.done() and not waiter.cancelled():
                    self._release(key)  # given a slot as it was cancelled: pass it on
                else:
                    self._forget(key, waiter)
                raise
        else:
            self._held[key] += 1
        try:
            yield
        finally:
            self._release(key)

    def _free_for(self, key: str) -> bool:
        return self.in_use < self.capacity and self._held[key] < self.per_key

    def _release(self, key: str) -> None:
        self._held[key] -= 1
        if self._held[key] <= 0:
            del self._held[key]
        self._hand_on()

    def _hand_on(self) -> None:
        """Give free slots to waiters, one key at a time in turn."""
        progress = True
        while progress and self._waiting and self.in_use < self.capacity:
            progress = False
            for key in list(self._waiting):
                if not self._free_for(key):
                    continue
                queue = self._waiting.pop(key)
                waiter = queue.popleft()
                if queue:
                    self._waiting[key] = queue  # to the back of the turn
                progress = True
                if not waiter.done():  # else cancelled, its task not yet told
                    self._held[key] += 1
                    waiter.set_result(None)
                break

    def _forget(self, key: str, waiter: asyncio.Future[None]) -> None:
        queue = self._waiting.get(key)
        if queue is not None and waiter in queue:
            queue.remove(waiter)
            if not queue:
                del self._waiting[key]
