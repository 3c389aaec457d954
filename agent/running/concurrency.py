"""Running a task's parallel work: all of it, or none of it left behind."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TypeVar

T = TypeVar("T")


async def all_or_none(work: Iterable[Awaitable[T]]) -> list[T]:
    """The results of `work`, run concurrently, in order. When one raises (or the caller is
    cancelled), the others are cancelled and waited for before the error goes on: nothing
    keeps calling tools or writing events for a step or a task that has stopped."""
    tasks = [asyncio.ensure_future(item) for item in work]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
