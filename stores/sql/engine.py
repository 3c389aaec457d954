"""Creating the async engine and bringing the schema up to date with Alembic."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, DisconnectionError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.util import await_

from core import secrets
from core.errors import StoreUnreachableError

if TYPE_CHECKING:  # Alembic is imported only when a migration runs (start-up time)
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
DEFAULT_URL = "sqlite+aiosqlite:///var/agentd.db"


@dataclass(frozen=True, slots=True)
class PoolOptions:
    """The connection pool of a server database (PostgreSQL); SQLite keeps its defaults."""

    size: int = 10
    """Connections kept open."""
    overflow: int = 10
    """Connections opened beyond `size` under load (closed when returned)."""
    timeout_seconds: float = 30.0
    """How long a caller waits for a connection when all are in use, before failing."""


def create_engine(
    url: str, *, schema: str | None = None, pool: PoolOptions | None = None
) -> AsyncEngine:
    """An async engine for `url`; SQLite files get their folder created.

    A PostgreSQL engine gets a sized pool whose overflow waits (`pool`): a
    burst of calls queues for a connection instead of failing.
    """
    parsed = make_url(url)
    pool = pool or PoolOptions()
    asyncpg = parsed.get_driver_name() == "asyncpg"
    options: dict[str, object] = {
        "pool_pre_ping": not asyncpg,  # asyncpg's: `_ping_at_checkout`
        "pool_size": pool.size,
        "max_overflow": pool.overflow,
        "pool_timeout": pool.timeout_seconds,
    }
    sqlite = parsed.get_backend_name() == "sqlite"
    if sqlite:
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        options = {}
    elif schema:
        options["connect_args"] = {"server_settings": {"search_path": schema}}
    engine = create_async_engine(url, **options)
    if sqlite:
        event.listen(engine.sync_engine, "connect", sqlite_pragmas)
    elif asyncpg:
        event.listen(engine.sync_engine.pool, "checkout", _ping_at_checkout)
    return engine


def _ping_at_checkout(dbapi_connection: Any, record: Any, proxy: Any) -> None:
    """SQLAlchemy's pre-ping on every checkout, in one round trip: `SELECT 1` in
    PostgreSQL's simple protocol (asyncpg's `execute` without arguments prepares nothing,
    so it is safe behind pgbouncer's transaction mode too). The asyncpg dialect's own ping
    opens a transaction around a prepared statement and rolls it back: three round trips
    before every statement of a search. A dead connection raises DisconnectionError, on
    which the pool discards it and checks out another."""
    try:
        await_(dbapi_connection.driver_connection.execute("SELECT 1"))
    except Exception as error:  # any failure: the connection is gone
        raise DisconnectionError(f"a pooled connection failed its ping: {error}") from error


SQLITE_BUSY_TIMEOUT_MS = 5000
"""How long a SQLite connection waits for another process's write lock."""


def sqlite_pragmas(connection: Any, record: Any) -> None:
    """WAL with synchronous=NORMAL: commits survive a crash of agentd without an fsync each;
    readers never block the writer; a busy database is waited for, not failed."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.close()


def shown(url: str) -> str:
    """`url` as it may be printed: its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:  # not a URL SQLAlchemy can read: hide what looks like a secret
        return secrets.scrub(url)


def _why(error: BaseException) -> str:
    """What went wrong opening a database, in the words of its server or the system."""
    if isinstance(error, DBAPIError):
        return str(error.orig).strip() or type(error.orig).__name__
    if isinstance(error, OSError) and error.errno is not None:
        reason = os.strerror(error.errno)
        return f"{reason}: {error.filename}" if error.filename else reason
    return str(error).strip() or type(error).__name__


@asynccontextmanager
async def connected(url: str, schema: str | None = None) -> AsyncIterator[AsyncConnection]:
    """One connection to the database at `url`, its engine disposed after.

    StoreUnreachableError (naming the URL, its password hidden) when there is none to
    have: the folder of a SQLite file cannot be made or the file opened, the server is
    down or refuses, the database does not exist, the URL cannot be read.
    """
    try:
        engine = create_engine(url, schema=schema)
    except OSError as error:  # the folder of a SQLite file could not be made
        reason = os.strerror(error.errno) if error.errno is not None else str(error)
        why = f"cannot make the folder {error.filename}: {reason}"
        raise StoreUnreachableError("the database", shown(url), why) from None
    except ArgumentError as error:
        raise StoreUnreachableError("the database", shown(url), _why(error)) from None
    try:
        try:
            connection = await engine.connect()
        except (OSError, DBAPIError) as error:
            raise StoreUnreachableError("the database", shown(url), _why(error)) from None
        try:
            yield connection
        finally:
            await connection.close()
    finally:
        await engine.dispose()


def alembic_config(url: str, schema: str | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if schema:
        config.set_main_option("agentd.schema", schema)
    return config


def head_revision() -> str:
    """The newest migration's revision id."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None
    return head


def migrate_sync(url: str, schema: str | None = None) -> None:
    """Upgrade the database to the newest migration. Idempotent. StoreUnreachableError
    when the database cannot be opened (see `connected`)."""
    from alembic import command

    command.upgrade(alembic_config(url, schema), "head")


async def migrate(url: str, schema: str | None = None) -> None:
    """`migrate_sync` in a worker thread (Alembic runs its own event loop there), unless
    the database is at the newest revision already (what a restart finds): that is
    read without Alembic, whose import alone costs a start a good part of a second."""
    if await _is_current(url, schema):
        return
    await asyncio.to_thread(migrate_sync, url, schema)


_REVISION = re.compile(r'^revision\s*=\s*"([^"]+)"\s*$', re.MULTILINE)
_DOWN_REVISION = re.compile(r"^down_revision\s*=\s*(.*)$", re.MULTILINE)


def known_head() -> str | None:
    """The newest migration's revision, read from the `revision = "..."` and
    `down_revision = ...` lines of the migration files, without Alembic; None when that
    finds not exactly one head or a file that does not say both (Alembic then decides).
    A test keeps it equal to `head_revision()`."""
    revisions: set[str] = set()
    below: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        if path.name == "__init__.py":
            continue
        source = path.read_text(encoding="utf-8")
        revision, down = _REVISION.search(source), _DOWN_REVISION.search(source)
        if revision is None or down is None:
            return None
        revisions.add(revision.group(1))
        below.update(re.findall(r"[\"']([^\"']+)[\"']", down.group(1)))
    heads = revisions - below
    return heads.pop() if len(heads) == 1 else None


async def _is_current(url: str, schema: str | None) -> bool:
    """Whether the database's Alembic revision is `known_head()` (False when in doubt)."""
    head = known_head()
    if head is None:
        return False
    async with connected(url, schema) as connection:
        try:
            rows = await connection.execute(text("SELECT version_num FROM alembic_version"))
        except DBAPIError:  # no version table yet: a new database
            return False
        return [row[0] for row in rows] == [head]
