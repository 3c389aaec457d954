"""Tool calls failing one after another: the streak that stops a run (TOOL_FAILURES)."""

from __future__ import annotations

from agent.limits import LimitReached
from records.tasks import StopReason
from records.tools.outcomes import ToolCallResult, ToolErrorKind

FAILURES = frozenset(
    {ToolErrorKind.FAILED, ToolErrorKind.TIMEOUT, ToolErrorKind.CRASHED, ToolErrorKind.UNAVAILABLE}
)
"""Outcomes that count towards `max_failed_tool_calls`: refused (not available to the task,
denied by policy), invalid arguments, tool errors, timeouts, crashes, tools that could
not be reached. A person's rejection and an unknown outcome after a takeover neither
count nor break a streak; every other outcome ends it."""


class FailureStreak:
    """The tool calls of a run that failed one after another (`FAILURES`)."""

    __slots__ = ("count", "last", "limit")

    def __init__(self, limit: int, count: int = 0) -> None:
        self.limit = limit
        """`max_failed_tool_calls`; 0: never stop."""
        self.count = count
        self.last = ""
        """The latest failure: the tool and what it said."""

    def saw(self, result: ToolCallResult) -> None:
        if result.error is None:
            self.count = 0
        elif result.error.kind in FAILURES:
            self.count += 1
            self.last = f"{result.tool_name}: {result.error.message}"

    def failing(self) -> LimitReached | None:
        """The signal to stop (TOOL_FAILURES) once `limit` calls in a row failed. Modes ask
        after each batch of calls, so calls running side by side all finish first."""
        if not self.limit or self.count < self.limit:
            return None
        last = self.last if len(self.last) <= 300 else self.last[:300] + "..."
        return LimitReached(
            StopReason.TOOL_FAILURES,
            f"{self.count} tool calls in a row failed (the limit is {self.limit}); "
            f"the last: {last}",
        )
