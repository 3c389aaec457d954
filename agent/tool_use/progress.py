"""A running tool call's progress reports as `tool_progress` events, rate-limited.

A tool may report progress many times a second (an MCP server's notifications, a loop in
a built-in); a client wants to see it move, not every step. `ProgressEvents` sends at
most one event per interval per call: the latest report wins and the event says how many
it stands for. The latest report always goes out before the call's end.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from records import events as ev
from tools.progress import Progress, ProgressSink

if TYPE_CHECKING:
    from agent.running.run import TaskRun


class ProgressEvents:
    """The `tool_progress` events of one tool call (a `tools.progress.ProgressSink`)."""

    __slots__ = (
        "_call_id",
        "_flusher",
        "_interval",
        "_latest",
        "_reports",
        "_run",
        "_sent_at",
        "_sleeping",
    )

    def __init__(self, run: TaskRun, call_id: str, interval_seconds: float) -> None:
        self._run = run
        self._call_id = call_id
        self._interval = interval_seconds
        self._latest: tuple[str, Progress] | None = None
        self._reports = 0
        self._sent_at = -interval_seconds
        self._flusher: asyncio.Task[None] | None = None
        self._sleeping = False

    def sink(self, tool_name: str) -> ProgressSink:
        """The sink for reports of `tool_name`'s call."""

        def add(found: Progress) -> None:
            self._latest = (tool_name, found)
            self._reports += 1
            if self._flusher is None:
                self._flusher = asyncio.get_running_loop().create_task(self._flush())

        return add

    async def _flush(self) -> None:
        """Send the latest report once the interval since the last event has passed; go
        on while reports keep coming."""
        loop = asyncio.get_running_loop()
        try:
            while self._latest is not None:
                wait = self._sent_at + self._interval - loop.time()
                if wait > 0:
                    self._sleeping = True
                    try:
                        await asyncio.sleep(wait)
                    finally:
                        self._sleeping = False
                await self._send()
        finally:
            self._flusher = None

    async def _send(self) -> None:
        latest, reports = self._latest, self._reports
        if latest is None:
            return
        self._latest, self._reports = None, 0
        self._sent_at = asyncio.get_running_loop().time()
        name, found = latest
        await self._run.transcript.emit(
            ev.ToolProgress(
                self._call_id, name, found.progress, found.total, found.message, reports
            )
        )

    async def close(self) -> None:
        """The call ended: the latest report goes out now (before the call's end)."""
        while (flusher := self._flusher) is not None:
            if self._sleeping:  # never one that is writing its event
                flusher.cancel()
            await asyncio.wait([flusher])
        await self._send()

    def abandon(self) -> None:
        """The call was cancelled: nothing more is sent."""
        if self._flusher is not None:
            self._flusher.cancel()
        self._latest = None
