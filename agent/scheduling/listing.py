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
from dataclasses import replace

from core.errors import TaskNotFoundError
from records.paging import Page, TimeCursor
from records.tasks import Task, TaskQuery, TaskStatus
from stores.history.base import TaskHistory, task_cursor
from stores.tasks.base import TaskStore

UNFINISHED = frozenset(s for s in TaskStatus if not s.terminal)

MAX_SCANS = 10
"""History pages read for one page at most: with a status filter, every unfinished task
whose live state does not match is read and dropped; past this the page is returned
short, with the cursor of the last row read to go on from."""


async def list_live(
    history: TaskHistory, store: TaskStore, query: TaskQuery
) -> Page[Task, TimeCursor]:
    """A page of the caller's tasks matching `query` (`query.limit` of them after
    `query.after`), newest first, unfinished ones as they are now. Its cursor is set
    whenever more may follow: after a full page when another match follows, and after a
    short one when the scans ran out before the end of history."""
    wanted = query.statuses
    if not wanted:  # every row matches: history's page is the page
        rows = await history.list(query)
        return Page(tuple(await _live_all(store, rows.items)), rows.next)
    scan = replace(query, statuses=wanted | UNFINISHED)
    found: list[Task] = []
    for _ in range(MAX_SCANS):
        rows = await history.list(scan)
        for task in await _live_all(store, rows.items):
            if task.status in wanted:
                if len(found) == query.limit:  # one more follows the full page
                    return Page(tuple(found), task_cursor(found[-1]))
                found.append(task)
        if rows.next is None:
            return Page(tuple(found))
        scan = replace(scan, after=rows.next)
    return Page(tuple(found), scan.after)


async def _live_all(store: TaskStore, rows: tuple[Task, ...]) -> list[Task]:
    return list(await asyncio.gather(*(_live(store, row) for row in rows)))


async def _live(store: TaskStore, row: Task) -> Task:
    if row.status.terminal:
        return row
    with contextlib.suppress(TaskNotFoundError):  # ended and let go since: the row is final
        return await store.get(row.tenant, row.task_id)
    return row
