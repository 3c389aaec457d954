"""Inserting rows so that each writer waits for its own commit, and concurrent writers share one."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import Table, insert
from sqlalchemy.ext.asyncio import AsyncEngine


class GroupCommit:
    """Inserts rows into one table; `insert` returns once the row is committed.

    Rows that arrive while a commit is in flight are gathered and committed
    together in the next transaction: every caller still waits for its own
    row, but concurrent callers share the cost of a commit.
    """

    def __init__(self, engine: AsyncEngine, table: Table) -> None:
        self._engine = engine
        self._table = table
        self._pending: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        self._lock = asyncio.Lock()

    async def insert(self, row: dict[str, Any]) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((row, done))
        async with self._lock:
            if not done.done():
                batch, self._pending = self._pending, []
                try:
                    async with self._engine.begin() as connection:
                        await connection.execute(insert(self._table), [r for r, _ in batch])
                except asyncio.CancelledError:
                    # Hand the others back to the next writer; this caller is going away.
                    self._pending[:0] = [(r, f) for r, f in batch if f is not done]
                    raise
                except Exception as error:  # noqa: BLE001 - handed to every waiting caller
                    for _, waiter in batch:
                        waiter.set_exception(error)
                else:
                    for _, waiter in batch:
                        waiter.set_result(None)
        await done
