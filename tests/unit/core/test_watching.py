"""The one reload loop of agent files, the toolsets file and grants."""

from __future__ import annotations

import asyncio

import pytest
import structlog

from core.watching import keep_reloading


async def test_changes_are_logged_and_failures_keep_the_loop_going() -> None:
    steps: list[object] = [True, ValueError("db down, password=hunter22"), OSError("again"),
                           False, True]  # fmt: skip

    async def reload() -> bool:
        if not steps:
            raise asyncio.CancelledError
        step = steps.pop(0)
        if isinstance(step, Exception):
            raise step
        return bool(step)

    with structlog.testing.capture_logs() as logs, pytest.raises(asyncio.CancelledError):
        await keep_reloading(
            reload, 0, changed="read again", failed="could not read", details=lambda: {"n": 1}
        )
    assert [(e["event"], e.get("n"), e.get("failures")) for e in logs] == [
        ("read again", 1, None),
        ("could not read", None, None),  # the first of a run: with its traceback
        ("could not read", None, 2),
        ("read again", 1, None),
    ]
    assert logs[1]["exc_info"] is True
    assert "hunter22" not in repr(logs)
