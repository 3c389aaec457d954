"""`agentd serve` listens for SIGTERM before it starts: a signal while it starts abandons
the start (as the default action would have), one after SERVING drains."""

from __future__ import annotations

import asyncio

import pytest

from server.wiring.startup import unless_stopped


async def test_a_start_that_finishes_gives_its_result() -> None:
    async def start() -> str:
        await asyncio.sleep(0)
        return "running"

    assert await unless_stopped(start(), asyncio.Event()) == "running"


async def test_a_stop_during_the_start_cancels_it() -> None:
    cancelled = asyncio.Event()

    async def start() -> str:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "running"

    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(0.01, stop.set)
    assert await asyncio.wait_for(unless_stopped(start(), stop), 5) is None
    assert cancelled.is_set()


async def test_a_start_that_fails_raises_its_error() -> None:
    async def start() -> str:
        raise RuntimeError("no database")

    with pytest.raises(RuntimeError, match="no database"):
        await unless_stopped(start(), asyncio.Event())
