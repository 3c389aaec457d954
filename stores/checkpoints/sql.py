"""Checkpoints in SQL (SQLite or PostgreSQL): one row per running task, replaced on each save."""

from __future__ import annotations

from sqlalchemy import bindparam, delete, select

from records.tasks import utcnow
from stores.sql.database import Database, insert_of
from stores.sql.schema import task_checkpoints

_DELETE = delete(task_checkpoints).where(task_checkpoints.c.task_id == bindparam("gone"))


class SqlCheckpointStore:
    """CheckpointStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer
        dialect = database.dialect
        if dialect not in ("sqlite", "postgresql"):
            raise ValueError(f"checkpoints need SQLite or PostgreSQL, not {dialect}")
        statement = insert_of(dialect, task_checkpoints)
        c = task_checkpoints.c
        self._upsert = statement.on_conflict_do_update(
            index_elements=[c.task_id],
            set_={
                "state": statement.excluded.state,
                "version": c.version + 1,
                "updated_at": statement.excluded.updated_at,
            },
        )

    async def save(self, tenant: str, task_id: str, state: str) -> None:
        row = {
            "task_id": task_id,
            "tenant": tenant,
            "version": 1,
            "state": state,
            "updated_at": utcnow(),
        }
        await self._writer.execute(self._upsert, row)

    async def load(self, tenant: str, task_id: str) -> str | None:
        c = task_checkpoints.c
        query = select(c.state).where(c.task_id == task_id, c.tenant == tenant)
        async with self._engine.connect() as connection:
            state: str | None = (await connection.execute(query)).scalar_one_or_none()
        return state

    async def delete(self, task_id: str) -> None:
        await self._writer.execute(_DELETE, {"gone": task_id})
