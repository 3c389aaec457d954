"""A run's tool calls as the run, its modes and its helpers use them (`RunTools`,
implemented by `agent.tool_use.calls.ToolCalls`, which the run's factory gives the run):
`agent.running.run` names this interface, not the class, which works through the run itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from agent.limits import LimitReached
from agent.tool_use.streak import FailureStreak
from records.checkpoints import JournalEntry
from records.tools.outcomes import ToolCallResult

PlannedCall = tuple[str, dict[str, Any] | None, str]
"""A call a mode wants: tool name, arguments (None when they did not parse), and why not."""


class RunTools(Protocol):
    """The tool calls of one run (`agent.tool_use.calls.ToolCalls`)."""

    journal: dict[str, JournalEntry]
    """The crash journal: calls by their key, saved with every checkpoint."""
    streak: FailureStreak
    """Calls that failed one after another: enough of them stop the run."""

    def failing(self) -> LimitReached | None:
        """The signal to stop (TOOL_FAILURES) once too many calls in a row failed."""
        ...

    def may_repeat(self, name: str) -> bool:
        """Whether a call of `name` may run again after a crash (or is not journalled)."""
        ...

    async def call_all(self, step_id: str, calls: Sequence[PlannedCall]) -> list[ToolCallResult]:
        """Several calls at once, results in call order."""
        ...

    async def call(
        self,
        step_id: str,
        name: str,
        arguments: dict[str, Any] | None,
        *,
        bad_arguments: str = "",
        key: str = "",
    ) -> ToolCallResult:
        """Run one tool call; refusals and failures become its result's text, never raise
        (but `agent.parked.Parked` when it must wait)."""
        ...

    def keep(self, key: str, result: ToolCallResult) -> None:
        """Keep a finished call's result for the woken run (its batch parks)."""
        ...
