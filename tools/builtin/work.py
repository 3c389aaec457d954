"""Where tools do blocking or CPU-heavy work: never on the event loop.

`in_thread` runs a function on the tools' own bounded thread pool (not asyncio's
default executor, which other parts of the server use): a tool that blocks or
computes can slow other tool calls, never the server's event loop, its health
checks or its SQL writes.

CPU-bound evaluation also carries a `Budget`: a count of work units checked
as the evaluation goes, and a flag the caller's timeout sets, so that work a
thread cannot be interrupted in stops at its next check.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable
from typing import TypeVar

from records.tools.outcomes import ToolFailed

T = TypeVar("T")
WORKERS = 8

_pool = concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="agentd-tool")


class Budget:
    """Work units an evaluation may spend, and whether its caller gave up on it."""

    def __init__(self, units: int, what: str) -> None:
        self._left = units
        self._what = what
        self.stopped = False
        """Set (from the event loop) once the caller stopped waiting; read by the worker
        thread at its next check (one attribute: no lock needed)."""

    def spend(self, units: int = 1) -> None:
        """Count work; ToolFailed once the budget is spent or the caller stopped waiting."""
        self._left -= units
        if self._left < 0:
            raise ToolFailed(f"{self._what} needs more work than this tool allows; simplify it")
        if self.stopped:
            raise ToolFailed(f"{self._what} was stopped: it took too long")


async def in_thread(function: Callable[..., T], *args: object, budget: Budget | None = None) -> T:
    """`function(*args)` on the tools' thread pool; cancelling the caller (a timeout)
    marks `budget` cancelled, so the evaluation stops at its next check."""
    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(_pool, functools.partial(function, *args))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        if budget is not None:
            budget.stopped = True
        raise
