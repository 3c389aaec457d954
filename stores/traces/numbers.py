"""Each task's message numbers, for the SQL store: a task's messages numbered in the order
they were first kept, by which its model calls' entries name them in runs
(`records.traces.codec.runs`).

This process remembers the numbers of the tasks it wrote last. Before each write it reads
the task's highest number: another replica may have written the task since (a task moves
on takeover), or a write of ours may have failed; when it is not the one remembered, the
task's numbers are read again. A task is written by one process at a time (its lease)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from stores.traces.tables import trace_messages

_M = trace_messages.c
MAX_TASKS = 256
"""Tasks whose numbers are remembered (the least recently written forgotten first)."""


@dataclass(slots=True)
class _Known:
    numbers: dict[str, int] = field(default_factory=dict)
    top: int = -1
    """The highest number kept (-1: none)."""


class MessageNumbers:
    def __init__(self, engine: AsyncEngine, max_tasks: int = MAX_TASKS) -> None:
        self._engine = engine
        self._max = max_tasks
        self._tasks: OrderedDict[str, _Known] = OrderedDict()

    async def numbered(self, task_id: str, new: Sequence[str]) -> dict[str, int]:
        """The task's message numbers, `new` ids not kept yet numbered next, in order. The
        numbers of ids whose write fails are read again before the next write."""
        known = self._tasks.pop(task_id, None)
        async with self._engine.connect() as connection:
            top = await connection.scalar(select(func.max(_M.number)).where(_M.task_id == task_id))
            top = -1 if top is None else int(top)
            if known is None or known.top != top:
                rows = await connection.execute(
                    select(_M.message_id, _M.number).where(_M.task_id == task_id)
                )
                known = _Known({r.message_id: int(r.number) for r in rows}, top)
        for message_id in new:
            if message_id not in known.numbers:
                known.top += 1
                known.numbers[message_id] = known.top
        self._tasks[task_id] = known
        while len(self._tasks) > self._max:
            self._tasks.popitem(last=False)
        return known.numbers

    def forget(self, task_ids: Sequence[str]) -> None:
        """Forget the numbers of tasks whose traces were deleted."""
        for task_id in task_ids:
            self._tasks.pop(task_id, None)
