"""Databases for the usage suites (ledger and statistics): each backend migrated once per
test module, and emptied of the tables they write before each test. A migration per
test would cost these suites most of their time; their stores read and write only
these tables, so an emptied database is as good as a new one for them."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, text
from sqlalchemy.ext.asyncio import create_async_engine

from stores.sql.database import Database
from stores.sql.engine import create_engine, migrate
from stores.sql.schema import model_calls, task_history, task_labels, tool_call_audit
from tests.contract.conftest import POSTGRES_URL

TABLES = (model_calls, tool_call_audit, task_labels, task_history)
"""What the usage suites write."""


@dataclass(frozen=True, slots=True)
class Migrated:
    url: str
    schema: str | None = None


async def _in_postgres(statement: str) -> None:
    admin = create_async_engine(POSTGRES_URL)
    try:
        async with admin.begin() as connection:
            await connection.execute(text(statement))
    finally:
        await admin.dispose()


@contextmanager
def migrated_once(kind: str, folder: Path) -> Iterator[Migrated]:
    """A migrated database for a module's tests: a SQLite file in `folder`, or a schema
    of the machine's PostgreSQL (dropped afterwards). Each step runs in an event loop of
    its own: no connection outlives it."""
    if kind == "sqlite":
        found = Migrated(f"sqlite+aiosqlite:///{folder / 'agentd.db'}")
        asyncio.run(migrate(found.url))
        yield found
        return
    found = Migrated(POSTGRES_URL, f"agentd_test_{secrets.token_hex(6)}")
    asyncio.run(_in_postgres(f'CREATE SCHEMA "{found.schema}"'))
    try:
        asyncio.run(migrate(found.url, found.schema))
        yield found
    finally:
        asyncio.run(_in_postgres(f'DROP SCHEMA "{found.schema}" CASCADE'))


@asynccontextmanager
async def emptied(migrated: Migrated) -> AsyncIterator[Database]:
    """The database, its usage tables emptied, with the writer every SQL store uses."""
    database = Database(create_engine(migrated.url, schema=migrated.schema))
    try:
        async with database.engine.begin() as connection:
            for table in TABLES:
                await connection.execute(delete(table))
        yield database
    finally:
        await database.close()
