"""Checkpoints in SQL (SQLite or PostgreSQL): one row per running task, replaced on each save."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncEngine

from agent.tasks import utcnow
from db.schema import task_checkpoints


class SqlCheckpointStore:
    """CheckpointStore on a SQLAlchemy async engine (owned by the caller)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        dialect = engine.dialect.name
        if dialect not in ("sqlite", "postgresql"):
            raise ValueError(f"checkpoints need SQLite or PostgreSQL, not {dialect}")
        self._insert = pg_insert if dialect == "postgresql" else sqlite_insert

    async def save(self, tenant: str, task_id: str, state: str) -> None:
        c = task_checkpoints.c
        now = utcnow()
        statement = self._insert(task_checkpoints).values(
            task_id=task_id, tenant=tenant, version=1, state=state, updated_at=now
        )
        statement = statement.on_conflict_do_update(
            index_elements=[c.task_id],
            set_={"state": state, "version": c.version + 1, "updated_at": now},
        )
        async with self._engine.begin() as connection:
            await connection.execute(statement)

    async def load(self, tenant: str, task_id: str) -> str | None:
        c = task_checkpoints.c
        query = select(c.state).where(c.task_id == task_id, c.tenant == tenant)
        async with self._engine.connect() as connection:
            state: str | None = (await connection.execute(query)).scalar_one_or_none()
        return state

    async def delete(self, task_id: str) -> None:
        async with self._engine.begin() as connection:
            await connection.execute(
                delete(task_checkpoints).where(task_checkpoints.c.task_id == task_id)
            )
