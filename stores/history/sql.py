"""Task history in SQL (SQLite or PostgreSQL) through SQLAlchemy's async engine."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, exists, or_, select

from core.errors import TaskNotFoundError
from records import serialization
from records.paging import Page, TimeCursor
from records.tasks import Task, TaskQuery
from stores.history.base import task_cursor
from stores.sql.database import Database, insert_of
from stores.sql.schema import task_history, task_labels


def _clean(text: str) -> str:
    """PostgreSQL text cannot hold NUL; the exact text stays in `data` (JSON-escaped)."""
    return text.replace("\x00", "\ufffd")


def _row(task: Task) -> dict[str, Any]:
    row = {
        "task_id": task.task_id,
        "tenant": task.tenant,
        "owner": task.owner,
        "task": task.goal,  # the column keeps the API's name
        "mode": task.mode.value,
        "status": task.status.value,
        "final_answer": task.final_answer,
        "error_reason": task.failure.reason if task.failure else "",
        "error_message": task.failure.message if task.failure else "",
        "stop_reason": task.stop_reason.value if task.stop_reason else "",
        "stop_detail": task.stop_detail,
        "prompt_tokens": task.usage.prompt_tokens,
        "completion_tokens": task.usage.completion_tokens,
        "reasoning_tokens": task.usage.reasoning_tokens,
        "last_sequence": task.last_sequence,
        "data": serialization.dumps(task),
        "created_at": task.created_at,
        "updated_at": task.updated_at,
        "agent_id": task.agent.agent_id if task.agent is not None else "",
        "agent_version": task.agent.version if task.agent is not None else 0,
        "conversation_id": task.conversation_id,
        "parent_task_id": task.parent_task_id,
        "root_task_id": task.root_task_id,
    }
    return {k: _clean(v) if isinstance(v, str) and k != "data" else v for k, v in row.items()}


class SqlTaskHistory:
    """TaskHistory on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer
        statement = insert_of(database.dialect, task_history)
        self._upsert = statement.on_conflict_do_update(
            index_elements=[task_history.c.task_id],
            set_={
                column.name: statement.excluded[column.name]
                for column in task_history.c
                if column.name not in ("task_id", "created_at")
            },
        )
        self._label = insert_of(database.dialect, task_labels).on_conflict_do_nothing(
            index_elements=[task_labels.c.task_id, task_labels.c.key]
        )

    async def record(self, task: Task) -> None:
        await self._writer.execute(self._upsert, _row(task))
        for key, value in sorted(task.labels.items()):  # labels never change: once is enough
            row = {"task_id": task.task_id, "tenant": task.tenant, "key": key, "value": value}
            await self._writer.execute(self._label, row)

    async def get(self, tenant: str, task_id: str) -> Task:
        query = select(task_history.c.data).where(
            task_history.c.task_id == task_id, task_history.c.tenant == tenant
        )
        async with self._engine.connect() as connection:
            data = (await connection.execute(query)).scalar_one_or_none()
        if data is None:
            raise TaskNotFoundError(task_id)
        task: Task = serialization.loads(data)
        return task

    async def list(self, query: TaskQuery) -> Page[Task, TimeCursor]:
        c = task_history.c
        statement = select(c.data).where(c.tenant == query.tenant, c.owner == query.owner)
        if query.statuses:
            statement = statement.where(c.status.in_(sorted(s.value for s in query.statuses)))
        if query.created_after is not None:
            statement = statement.where(c.created_at >= query.created_after)
        if query.created_before is not None:
            statement = statement.where(c.created_at < query.created_before)
        if query.agent:
            statement = statement.where(c.agent_id == query.agent)
            if query.agent_version is not None:
                statement = statement.where(c.agent_version == query.agent_version)
        if query.conversation_id:
            statement = statement.where(c.conversation_id == query.conversation_id)
        if query.parent_task_id:
            statement = statement.where(c.parent_task_id == query.parent_task_id)
        labels = task_labels.c
        for key, value in sorted(query.labels.items()):
            statement = statement.where(
                exists().where(
                    labels.tenant == query.tenant,
                    labels.task_id == c.task_id,
                    labels.key == key,
                    labels.value == value,
                )
            )
        if query.after is not None:
            created, task_id = query.after.created_at, query.after.item_id
            statement = statement.where(
                or_(c.created_at < created, and_(c.created_at == created, c.task_id < task_id))
            )
        statement = statement.order_by(c.created_at.desc(), c.task_id.desc())
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement.limit(query.limit + 1))).scalars().all()
        found: list[Task] = [serialization.loads(data) for data in rows]
        return Page.cut(found, query.limit, task_cursor)

    async def close(self) -> None:
        return  # the engine belongs to the caller
