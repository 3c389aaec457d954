"""Tool-call records of a unary RPC committed with its RPC record, in one transaction.

A `CallTool` writes two audit records, the tool call's (in the handler) and the RPC's
(in the audit interceptor, once the handler is done); both must be committed before
the response goes out. Committed one after the other they cost two commits on the
database's one writer. Within a `deferring()` block, a tool-call record that the
block's own task writes is queued instead (`SqlAuditLog.write` returns at once, the
row checked); the RPC record's write then commits it in the same transaction, and
`settle()` waits until it is, raising its error if it could not be. The response is
sent only after `settle()` returned, so the caller still never hears back before
both records are stored.

Only the task that opened the block defers: a task it starts (an agent's run) writes
and commits its records as always, and so does anything after the block is closed.

`others_open()` tells the database's writer whether more than one block is open: other
calls are in flight that will commit their records soon, and a commit may wait a moment
to take theirs too (`SqlWriter`), as a database delays a commit while other
transactions are active (PostgreSQL's commit_delay with commit_siblings).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_open = 0
"""The `deferring()` blocks open now (the unary RPCs being served)."""


def others_open() -> bool:
    """Whether blocks other than one are open: unary RPCs in flight besides one."""
    return _open > 1


class Deferral:
    """The records queued by one RPC's task, and how to commit what is still queued."""

    def __init__(self) -> None:
        self.task = asyncio.current_task()
        self.open = True
        self._queued: list[asyncio.Future[int]] = []
        self._commit: Callable[[], None] | None = None

    def add(self, written: asyncio.Future[int], commit: Callable[[], None]) -> None:
        """A queued record, and what starts its commit if no other write does first."""
        self._queued.append(written)
        self._commit = commit

    async def settle(self) -> None:
        """Close the block; return once its records are committed (else raise the
        first one's error)."""
        self.open = False
        if not self._queued:
            return
        if not all(f.done() for f in self._queued):  # not yet taken by another write
            if self._commit is not None:
                self._commit()
            await asyncio.wait(self._queued)
        queued, self._queued = self._queued, []
        # All done: read how each ended here, without another turn of the loop.
        errors = [
            asyncio.CancelledError() if written.cancelled() else written.exception()
            for written in queued
        ]
        for error in errors:
            if error is not None:
                raise error


_DEFERRAL: ContextVar[Deferral | None] = ContextVar("agentd_audit_deferral", default=None)


@contextmanager
def deferring() -> Iterator[Deferral]:
    """Defer the tool-call records the current task writes until `settle()`."""
    global _open
    deferral = Deferral()
    token = _DEFERRAL.set(deferral)
    _open += 1
    try:
        yield deferral
    finally:
        _open -= 1
        deferral.open = False
        _DEFERRAL.reset(token)


def current() -> Deferral | None:
    """The open deferral of the current task, if any."""
    deferral = _DEFERRAL.get()
    if deferral is None or not deferral.open or deferral.task is not asyncio.current_task():
        return None
    return deferral
