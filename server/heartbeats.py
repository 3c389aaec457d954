"""Heartbeats on quiet streams: a stream with nothing to send for a while gets a sign of
life, so proxies and load balancers with idle timeouts keep it open.

A heartbeat is not part of the task's log (its sequence is 0), so a client can never
mistake it for an event or for a gap.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TypeVar

T = TypeVar("T")


async def with_heartbeats(events: AsyncIterator[T], interval: float) -> AsyncIterator[T | None]:
    """`events`, with None whenever `interval` seconds pass without one: time for a
    heartbeat (interval 0: never)."""
    if interval <= 0:
        async for event in events:
            yield event
        return
    waiting: asyncio.Future[T] | None = None
    try:
        while True:
            if waiting is None:
                waiting = asyncio.ensure_future(anext(events))
            done, _ = await asyncio.wait({waiting}, timeout=interval)
            if not done:
                yield None
                continue
            finished, waiting = waiting, None
            try:
                event = finished.result()
            except StopAsyncIteration:
                return
            yield event
    finally:
        if waiting is not None:
            waiting.cancel()
            with contextlib.suppress(BaseException):
                await waiting
        closing = getattr(events, "aclose", None)
        if closing is not None:
            await closing()
