"""Each task's message numbers, for the SQL store: a task's messages numbered in the order
they were first kept, by which its model calls' entries name them in runs
(`records.traces.codec.runs`).

This process remembers the numbers of the tasks it wrote last, and reads a task's from
the database when it does not. A number is unique in its task (a unique index): should
another replica have written the task since (a task moves on takeover), a write with a
number it took fails, the store forgets what it remembered of the task
(`forget`), and the write's retry reads the numbers again."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from stores.traces.tables import trace_messages

_M = trace_messages.c
MAX_TASKS = 256
"""Tasks whose numbers are remembered (the least recently written forgotten first)."""


class MessageNumbers:
    def __init__(self, engine: AsyncEngine, max_tasks: int = MAX_TASKS) -> None:
        self._engine = engine
        self._max = max_tasks
        self._tasks: OrderedDict[str, tuple[dict[str, int], list[int]]] = OrderedDict()
        """By task: its numbers, and the highest of them (-1: none) in a list of one."""

    async def numbered(
        self, task_id: str, new: Sequence[str], fresh: bool = False
    ) -> dict[str, int]:
        """The task's message numbers, the `new` ids not numbered yet numbered next, in
        order; `fresh`: none was kept before (nothing to read)."""
        remembered = self._tasks.pop(task_id, None)
        if remembered is None and fresh:
            remembered = {}, [-1]
        elif remembered is None:
            query = select(_M.message_id, _M.number).where(_M.task_id == task_id)
            async with self._engine.connect() as connection:
                rows = await connection.execute(query)
                known = {r.message_id: int(r.number) for r in rows}
            remembered = known, [max(known.values(), default=-1)]
        known, top = remembered
        for message_id in new:
            if message_id not in known:
                top[0] += 1
                known[message_id] = top[0]
        self._tasks[task_id] = remembered
        while len(self._tasks) > self._max:
            self._tasks.popitem(last=False)
        return known

    def forget(self, task_ids: Iterable[str]) -> None:
        """Forget the numbers of tasks (their traces deleted, or a write failed)."""
        for task_id in task_ids:
            self._tasks.pop(task_id, None)
