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
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar


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
    deferral = Deferral()
    token = _DEFERRAL.set(deferral)
    try:
        yield deferral
    finally:
        deferral.open = False
        _DEFERRAL.reset(token)


def current() -> Deferral | None:
    """The open deferral of the current task, if any."""
    deferral = _DEFERRAL.get()
    if deferral is None or not deferral.open or deferral.task is not asyncio.current_task():
        return None
    return deferral
