"""Retention on SQL (SQLite or PostgreSQL): finished tasks' records, artifact versions and
the inbox's history.

Each sweep is one transaction: a DELETE of the rows a bounded subquery picks (oldest
first, by the index of migration 0019), returning what went. On PostgreSQL the subquery
locks the rows it picks and skips those another replica's sweep holds, so concurrent
sweeps share the work instead of queueing behind each other; on SQLite there is one
writer at a time anyway.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, delete, exists, select, tuple_
from sqlalchemy.ext.asyncio import AsyncEngine

from records.tasks import TaskStatus
from stores.sql.database import Database
from stores.sql.schema import action_history, artifacts, task_history, task_labels

FINISHED = sorted(s.value for s in TaskStatus if s.terminal)
"""The statuses of a finished task, as task_history stores them."""

_H = task_history.c
_A = artifacts.c
_I = action_history.c
_ROOT = task_history.alias("tree_root")


def _unfinished(root_task_id: Any) -> Any:
    """Whether the task `root_task_id` names is recorded and not finished."""
    return exists().where(_ROOT.c.task_id == root_task_id, _ROOT.c.status.notin_(FINISHED))


def _locking(statement: Select[Any], engine: AsyncEngine) -> Select[Any]:
    """`statement` taking the rows it picks, passing over those another sweep holds."""
    if engine.dialect.name == "postgresql":
        return statement.with_for_update(skip_locked=True)
    return statement  # SQLite: one writer at a time


class SqlTaskRecords:
    """Finished tasks' records: their task_history row and labels. A row goes when its
    task finished before the cutoff (`updated_at`: its end) and the root task of its tree
    is not unfinished, so a long-running lead's finished children stay listed under it."""

    name = "task records"

    def __init__(self, database: Database) -> None:
        self._engine = database.engine

    async def sweep(self, before: datetime, limit: int) -> int:
        picked = _locking(
            select(_H.task_id)
            .where(
                _H.status.in_(FINISHED),
                _H.updated_at < before,
                ~_unfinished(_H.root_task_id),
            )
            .order_by(_H.updated_at)
            .limit(limit),
            self._engine,
        )
        async with self._engine.begin() as connection:
            gone = list(
                (
                    await connection.execute(
                        delete(task_history)
                        .where(_H.task_id.in_(picked.scalar_subquery()))
                        .returning(_H.task_id)
                    )
                ).scalars()
            )
            if gone:
                await connection.execute(delete(task_labels).where(task_labels.c.task_id.in_(gone)))
        return len(gone)


class SqlArtifactVersions:
    """Artifact versions, each by when it was written; none of a tree whose root task's
    record says it is unfinished (a tree without a record, or an artifact written outside
    a task, goes by age alone)."""

    name = "artifact versions"

    def __init__(self, database: Database) -> None:
        self._engine = database.engine

    async def sweep(self, before: datetime, limit: int) -> int:
        picked = _locking(
            select(_A.space, _A.name, _A.version)
            .where(_A.created_at < before, ~_unfinished(_A.space))
            .order_by(_A.created_at)
            .limit(limit),
            self._engine,
        )
        async with self._engine.begin() as connection:
            result = await connection.execute(
                delete(artifacts)
                .where(tuple_(_A.space, _A.name, _A.version).in_(picked))
                .returning(_A.version)
            )
            return len(result.all())


class SqlActionHistoryEntries:
    """The inbox's history, each entry by when its step was taken; none of a tree whose
    root task's record says it is unfinished (its task records go no sooner either)."""

    name = "inbox history entries"

    def __init__(self, database: Database) -> None:
        self._engine = database.engine

    async def sweep(self, before: datetime, limit: int) -> int:
        picked = _locking(
            select(_I.entry_id)
            .where(_I.time < before.astimezone(UTC), ~_unfinished(_I.root_task_id))
            .order_by(_I.time)
            .limit(limit),
            self._engine,
        )
        async with self._engine.begin() as connection:
            result = await connection.execute(
                delete(action_history)
                .where(_I.entry_id.in_(picked.scalar_subquery()))
                .returning(_I.entry_id)
            )
            return len(result.all())
