"""The one writer of a process: every SQL write goes through it.

Writes are SQLAlchemy Core statements (insert, upsert, update, delete) with
their parameters. Each caller waits for its own statement's commit; the
statements that arrive while a commit is in flight are committed together in
the next transaction (group commit), whatever their tables. Within it, the
rows of each insert statement go in one executemany, in arrival order (so a
batch costs a round trip per statement, not per row); the writes of different
callers have no order between them, and a caller's own writes are never in
one batch, since each waits for its commit. While other RPCs are in flight (`busy`), a
commit first waits a millisecond for their writes: calls served one after the other
then share a commit instead of taking one each. A commit runs in a task of its
own, so a caller cancelled while waiting neither loses nor duplicates
anyone's write.

One bad write never takes the others with it: rows are checked against
their table (string lengths, NUL characters, text that is not UTF-8) before
they join a batch, and when a batch still fails, each of its statements is
retried in a transaction of its own, so only the bad one fails. A database
that cannot be reached (or a pool that stays exhausted) is retried a few
times, then reported as `StoreUnavailableError`.

On SQLite every commit runs on one dedicated thread with the plain sqlite3
driver: writes of the process are serialised there (SQLite allows one
writer at a time; nothing else in the process writes, so nothing waits for
the database lock), and no other thread pool (the tools', asyncio's
default) can starve them. Reads use the async engine's own connections.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog
from sqlalchemy import Connection, Engine, String, Table, Text, event
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.dml import Insert, UpdateBase

from core.errors import StoreUnavailableError
from core.faults import is_unavailable
from stores.sql.driver_inserts import insert_rows
from stores.sql.engine import sqlite_pragmas

log = structlog.get_logger(__name__)

RETRY_DELAYS = (0.05, 0.25, 1.0)
"""Waits before the retries of a batch the database could not take."""

HELD_IDLE_SECONDS = 10.0
"""The writer keeps its connection to a server database between commits while they come
at least this often; after a longer pause it checks one out again (pinged)."""

HOLD_SECONDS = 0.001
"""How long a commit waits, while other calls are in flight (`busy`), for their writes
to come and share it."""


class RowRejectedError(ValueError):
    """A row that its table cannot hold (too long, NUL characters, not UTF-8 text)."""


Params = Mapping[str, Any] | Sequence[Mapping[str, Any]] | None  # a row, rows, or none


@dataclass(frozen=True, slots=True)
class _Write:
    statement: UpdateBase
    params: Mapping[str, Any] | None
    done: asyncio.Future[int] = field(compare=False)
    then: tuple[tuple[UpdateBase, Params], ...] = ()
    """Statements run after `statement`, in the same transaction (`execute_together`);
    the write's row count is then the last one's."""


_Groups = list[tuple[UpdateBase, list[_Write]]]
"""A batch as statements to run, each with the writes it carries."""


_LENGTHS: dict[Table, dict[str, int | None]] = {}
"""Per table, each column's key and its length limit (None: none), read once."""


def _lengths(table: Table) -> dict[str, int | None]:
    lengths = _LENGTHS.get(table)
    if lengths is None:
        lengths = _LENGTHS[table] = {
            column.key: column.type.length if isinstance(column.type, String | Text) else None
            for column in table.c
        }
    return lengths


def check_row(table: Table, row: Mapping[str, Any]) -> None:
    """RowRejectedError when `row` cannot be stored in `table` as it is."""
    lengths = _lengths(table)
    for name, value in row.items():
        if name not in lengths:
            raise RowRejectedError(f"{table.name} has no column {name!r}")
        if not isinstance(value, str):
            continue
        if "\x00" in value:
            raise RowRejectedError(f"{table.name}.{name} holds a NUL character")
        if not value.isascii():  # ASCII is UTF-8 text as it is
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise RowRejectedError(f"{table.name}.{name} is not valid UTF-8 text") from None
        length = lengths[name]
        if length is not None and len(value) > length:
            raise RowRejectedError(
                f"{table.name}.{name} is {len(value)} characters, more than {length}"
            )


class SqlWriter:
    """Commits statements for many callers; one per database per process."""

    def __init__(self, engine: AsyncEngine, busy: Callable[[], bool] | None = None) -> None:
        self._engine = engine
        self._busy = busy
        """Whether other calls are in flight that will write soon: a commit then waits
        `HOLD_SECONDS` first, so that theirs share it. None: a commit never waits."""
        self._sync: Engine | None = None
        self._connection: Connection | None = None
        """The writer thread's connection (SQLite), opened on its first commit."""
        self._held: AsyncConnection | None = None
        self._held_since = 0.0
        """The writer's connection to a server database, kept between commits (no pool
        checkout and its ping per commit) while it is used at least every
        `HELD_IDLE_SECONDS`; dropped on any error (the retry takes a fresh one)."""
        self._thread: concurrent.futures.ThreadPoolExecutor | None = None
        if engine.dialect.name == "sqlite":
            url = engine.url.set(drivername="sqlite")
            self._sync = create_sync_engine(url, connect_args={"check_same_thread": False})
            event.listen(self._sync, "connect", sqlite_pragmas)
            self._thread = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="agentd-sql-writer"
            )
        self._pending: list[_Write] = []
        self._inserts: dict[str, Insert] = {}
        """One insert statement per table, so that rows of a table in a batch share it."""
        self._plain: dict[int, Table] = {}
        """Those statements (by id), which SQLite runs through its driver (`driver_inserts`)."""
        self._flusher: asyncio.Task[None] | None = None
        """The task committing what is queued, batch after batch, while anything is."""

    def _insert_of(self, table: Table) -> Insert:
        statement = self._inserts.get(table.name)
        if statement is None:
            statement = self._inserts[table.name] = table.insert()
            self._plain[id(statement)] = table
        return statement

    async def insert(self, table: Table, row: Mapping[str, Any]) -> None:
        """Insert one row; returns once it is committed."""
        await self.execute(self._insert_of(table), row)

    async def execute(self, statement: UpdateBase, params: Mapping[str, Any] | None = None) -> int:
        """Run one write statement; returns its row count once it is committed.

        RowRejectedError for a row its table cannot hold (nothing is written);
        StoreUnavailableError when the database cannot be reached.
        """
        table = getattr(statement, "table", None)
        if params is not None and _inserts_rows(statement) and isinstance(table, Table):
            check_row(table, params)
        return await self._queue(statement, params)

    def enqueue(self, table: Table, row: Mapping[str, Any]) -> asyncio.Future[int]:
        """Queue one row for the next commit without starting one; the future settles when
        it is committed (or fails). Someone must then commit: a later `insert`/`execute`
        (any caller's) takes it into its transaction, or `commit_pending`.
        RowRejectedError at once for a row its table cannot hold (nothing is queued)."""
        check_row(table, row)
        statement = self._insert_of(table)
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append(_Write(statement, row, done))
        return done

    def commit_pending(self) -> None:
        """Start committing what is queued (`enqueue`), unless a commit is under way (the
        next one takes it)."""
        if self._pending and self._flusher is None:
            self._flusher = asyncio.get_running_loop().create_task(self._flush())

    async def execute_together(self, steps: Sequence[tuple[UpdateBase, Params]]) -> int:
        """Run write statements in order, all in one transaction (all of them or none);
        the last one's row count once committed. A later step may carry rows (a sequence:
        one executemany). Rows are not checked: the statements are the store's own."""
        (statement, params), *then = steps
        assert params is None or isinstance(params, Mapping), "the first step takes a row"
        return await self._queue(statement, params, tuple(then))

    async def _queue(
        self,
        statement: UpdateBase,
        params: Mapping[str, Any] | None,
        then: tuple[tuple[UpdateBase, Params], ...] = (),
    ) -> int:
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append(_Write(statement, params, done, then))
        self.commit_pending()
        return await done

    async def _flush(self) -> None:
        """Commit every queued write in one batch, then what was queued meanwhile, until
        nothing is: one task for a run of commits (a caller cancelled while it waits
        leaves its write in the batch)."""
        try:
            while self._pending:
                # The calls the loop is about to run first queue their writes: a batch
                # takes them too, and a busy process commits less often.
                await asyncio.sleep(0)
                if self._busy is not None and self._busy():
                    await asyncio.sleep(HOLD_SECONDS)
                batch, self._pending = self._pending, []
                await self._commit(batch)
        finally:
            self._flusher = None

    async def _commit(self, batch: list[_Write]) -> None:
        error = await self._attempt(batch)
        if error is None:
            return
        if len(batch) == 1:
            _settle(batch, error)
            return
        # One of them may be the culprit: each on its own, so only it fails.
        for write in batch:
            _settle([write], await self._attempt([write]))

    async def _attempt(self, batch: list[_Write]) -> BaseException | None:
        """Commit `batch` in one transaction (retrying an unreachable database); None when
        it committed (its callers are answered), else the error."""
        groups = _groups(batch)
        for delay in (*RETRY_DELAYS, None):
            try:
                counts = await self._transaction(groups)
            except Exception as error:  # noqa: BLE001 - handed to the waiting callers
                if not is_unavailable(error) or delay is None:
                    return _as_store_error(error)
                log.warning("database write failed; retrying", error=str(error), delay=delay)
                await asyncio.sleep(delay)
            else:
                ordered = (write for _, writes in groups for write in writes)
                for write, count in zip(ordered, counts, strict=True):
                    if not write.done.done():
                        write.done.set_result(count)
                return None
        raise AssertionError("unreachable")  # pragma: no cover

    async def _transaction(self, groups: _Groups) -> list[int]:
        """Run `groups` in one transaction; the row counts of their writes, in order."""
        if self._sync is not None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._thread, self._run_sync, groups)
        now = time.monotonic()
        if self._held is not None and now - self._held_since > HELD_IDLE_SECONDS:
            await self._drop_held()  # idle long enough to have been cut: checked out afresh
        if self._held is None:
            self._held = await self._engine.connect()  # pinged at checkout
        try:
            async with self._held.begin():
                counts = await self._held.run_sync(_run, groups)
        except BaseException:
            await self._drop_held()
            raise
        self._held_since = time.monotonic()
        return counts

    async def _drop_held(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            try:
                await held.invalidate()  # broken or stale: never back into the pool
                await held.close()
            except Exception:  # already broken: nothing to release
                log.warning("could not close the writer's connection", exc_info=True)

    def _run_sync(self, groups: _Groups) -> list[int]:
        """On the writer's thread: one transaction on its own connection, kept open
        between commits (no pool checkout, and no rollback on checkin, per commit)."""
        assert self._sync is not None
        if self._connection is None:
            self._connection = self._sync.connect()
        try:
            with self._connection.begin():
                return _run(self._connection, groups, self._plain)
        except BaseException:
            self._close_connection()  # the next commit starts on a fresh one
            raise

    def _close_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except Exception:  # already broken: nothing to release
                log.warning("could not close the writer's connection", exc_info=True)

    async def close(self) -> None:
        """Wait for the commits in flight; release the writer's connection and thread.
        Idempotent: a server stopped twice (a drain, then its shutdown) closes it twice."""
        self.commit_pending()
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
        held, self._held = self._held, None
        if held is not None:
            await held.close()
        thread, self._thread = self._thread, None
        if thread is not None:
            await asyncio.get_running_loop().run_in_executor(thread, self._close_connection)
            thread.shutdown(wait=True)
        sync, self._sync = self._sync, None
        if sync is not None:
            sync.dispose()


def _inserts_rows(statement: UpdateBase) -> bool:
    """Whether `statement` inserts the row its parameters are (not an INSERT ... SELECT,
    whose parameters are the select's: neither checked as a row nor batched as one)."""
    return isinstance(statement, Insert) and statement.select is None


def _groups(batch: Sequence[_Write]) -> _Groups:
    """The batch as statements to run: the rows of each insert statement together (one
    executemany, in arrival order, where the statement first occurs); every other
    statement on its own (its row count is its caller's answer)."""
    groups: _Groups = []
    inserts: dict[int, list[_Write]] = {}
    for write in batch:
        if _inserts_rows(write.statement) and write.params is not None and not write.then:
            rows = inserts.get(id(write.statement))
            if rows is not None:
                rows.append(write)
                continue
            rows = inserts[id(write.statement)] = []
            rows.append(write)
            groups.append((write.statement, rows))
        else:
            groups.append((write.statement, [write]))
    return groups


def _steps(write: _Write) -> list[tuple[UpdateBase, Any]]:
    steps = [(write.statement, write.params), *write.then]  # a row, rows (executemany), none
    return [
        (statement, [dict(r) for r in p] if isinstance(p, Sequence) else p and dict(p))
        for statement, p in steps
    ]


def _run(
    connection: Connection, groups: _Groups, plain: Mapping[int, Table] | None = None
) -> list[int]:
    """Run `groups` on `connection`; `plain`: the writer's plain inserts (by id) and their
    tables, whose rows may go through the driver itself (`driver_inserts`)."""
    counts: list[int] = []
    for statement, writes in groups:
        table = plain.get(id(statement)) if plain else None
        if table is not None and _through_driver(connection, table, writes):
            counts.extend(1 for _ in writes)
        elif len(writes) > 1:
            connection.execute(statement, [dict(w.params or {}) for w in writes])
            counts.extend(1 for _ in writes)
        else:
            for step, params in _steps(writes[0]):
                count = _rowcount(connection.execute(step, params))
            counts.append(count)
    return counts


def _through_driver(connection: Connection, table: Table, writes: list[_Write]) -> bool:
    rows = [w.params for w in writes if w.params is not None and not w.then]
    return len(rows) == len(writes) and insert_rows(connection, table, rows)


def _rowcount(result: Any) -> int:
    count = getattr(result, "rowcount", -1)
    return int(count) if isinstance(count, int) else -1


def _settle(batch: Sequence[_Write], error: BaseException | None) -> None:
    if error is None:
        return
    for write in batch:
        if not write.done.done():
            write.done.set_exception(error)


def _as_store_error(error: Exception) -> Exception:
    if is_unavailable(error):
        return StoreUnavailableError("the database", type(error).__name__)
    return error
