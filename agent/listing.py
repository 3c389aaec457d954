"""ListTasks: a page of a caller's tasks from history, unfinished ones in their live state.

History holds every task's row, but an unfinished task's row may lag its live state (it
is written when the task is accepted or first runs, and when it ends; not as a queued
task starts, nor as a finished one's end is announced). So the status filter is applied
to the live state: history is asked for the requested statuses and every unfinished
one, each unfinished row is replaced by the task's live state, and what then does not
match is dropped, the next rows filling the page. A task is thus listed under the status
its last event announced, however far its history row lags.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace

from agent.tasks import Task, TaskStatus
from core.errors import TaskNotFoundError
from stores.history.base import TaskHistory, TaskQuery
from stores.tasks.base import TaskStore

UNFINISHED = frozenset(s for s in TaskStatus if not s.terminal)

MAX_SCANS = 20
"""History pages read to fill one page at most (rows are dropped only for tasks whose
state moved past their row, so one or two are the rule)."""


async def list_live(history: TaskHistory, store: TaskStore, query: TaskQuery) -> list[Task]:
    """At most `query.limit` of the caller's tasks matching `query`, newest first."""
    wanted = query.statuses
    scan = replace(query, statuses=wanted | UNFINISHED) if wanted else query
    found: list[Task] = []
    for _ in range(MAX_SCANS):
        rows = await history.list(scan)
        for row in rows:
            task = row
            if not row.status.terminal:
                with contextlib.suppress(TaskNotFoundError):  # ended and let go since
                    task = await store.get(row.tenant, row.task_id)
            if not wanted or task.status in wanted:
                found.append(task)
                if len(found) == query.limit:
                    return found
        if len(rows) < scan.limit:
            break
        scan = replace(scan, after=(rows[-1].created_at, rows[-1].task_id))
    return found
