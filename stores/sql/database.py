"""A database as the stores use it: an async engine for reads, and the one writer."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table
from sqlalchemy.ext.asyncio import AsyncEngine

from stores.audit import deferral
from stores.sql.engine import PoolOptions, create_engine
from stores.sql.group_commit import SqlWriter


class Database:
    """Reads go through `engine` (its own pooled connections); every write goes through
    `writer`, so that the writes of a process are serialised and grouped (`SqlWriter`).
    One per database per process; the stores built on it share it."""

    def __init__(self, engine: AsyncEngine, writer: SqlWriter | None = None) -> None:
        self.engine = engine
        # While other RPCs are in flight, a commit waits a moment to take their records.
        self.writer = writer or SqlWriter(engine, deferral.others_open)

    @classmethod
    def open(cls, url: str, *, pool: PoolOptions | None = None) -> Database:
        return cls(create_engine(url, pool=pool))

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    async def close(self) -> None:
        """Finish the writes in flight, then close every connection."""
        await self.writer.close()
        await self.engine.dispose()


def insert_of(dialect: str, table: Table) -> Any:
    """INSERT into `table` in `dialect`'s own form (it has `on_conflict_do_update`). Only
    that dialect's module is imported: PostgreSQL's costs an embedded server's start-up a
    good part of a second."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)
