"""Alembic environment: runs migrations over the async engine, in Alembic's own event loop."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection

from stores.sql.engine import connected
from stores.sql.schema import metadata

config = context.config


MIGRATION_LOCK = 7_346_231_004  # any constant shared by every agentd replica


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Replicas starting together migrate one at a time; the others then find nothing to do.
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        context.run_migrations()


async def _online() -> None:
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None
    async with connected(url, config.get_main_option("agentd.schema")) as connection:
        await connection.run_sync(_run)
        await connection.commit()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_online())
