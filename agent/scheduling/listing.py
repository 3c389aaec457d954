"""ListTasks: a page of a caller's tasks from history, unfinished ones in their live state.

History holds every task's row, but an unfinished task's row may lag its live state (it
is written when the task is accepted to wait or first runs, and when it ends; not as a
queued task starts, as a task waits for a person, nor as a finished one's end is
announced). So the status filter is applied to the live state: history is asked for the
requested statuses and every unfinished one, each unfinished row is replaced by the
task's live state, and what then does not match is dropped, the next rows filling the
page. A task is thus listed under the status its last event announced, however far its
history row lags. The other filters (time, labels, agent, conversation) are history's
alone: what they look at is fixed when a task is accepted, so its row never lags them.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, replace
from datetime import datetime

from core.errors import TaskNotFoundError
from records.tasks import Task, TaskStatus
from stores.history.base import TaskHistory, TaskQuery
from stores.tasks.base import TaskStore

UNFINISHED = frozenset(s for s in TaskStatus if not s.terminal)

MAX_SCANS = 10
"""History pages read for one page at most: with a status filter, every unfinished task
whose live state does not match is read and dropped; past this the page is returned
short, with a cursor to go on from."""


@dataclass(frozen=True, slots=True)
class Listing:
    tasks: list[Task]
    """At most `query.limit` tasks matching the query, newest first."""
    scanned_to: tuple[datetime, str] | None = None
    """When the scans ran out before the end of history: the cursor (created_at, task_id)
    of the last row read, where a next page starts."""


async def list_live(history: TaskHistory, store: TaskStore, query: TaskQuery) -> Listing:
    """The caller's tasks matching `query`, newest first, unfinished ones as they are now."""
    wanted = query.statuses
    scan = replace(query, statuses=wanted | UNFINISHED) if wanted else query
    found: list[Task] = []
    for _ in range(MAX_SCANS):
        rows = await history.list(scan)
        for task in await asyncio.gather(*(_live(store, row) for row in rows)):
            if not wanted or task.status in wanted:
                found.append(task)
                if len(found) == query.limit:
                    return Listing(found)
        if len(rows) < scan.limit:
            return Listing(found)
        scan = replace(scan, after=(rows[-1].created_at, rows[-1].task_id))
    return Listing(found, scan.after)


async def _live(store: TaskStore, row: Task) -> Task:
    if row.status.terminal:
        return row
    with contextlib.suppress(TaskNotFoundError):  # ended and let go since: the row is final
        return await store.get(row.tenant, row.task_id)
    return row
