"""What a run holds but does not make: its tool calls (`RunTools`, implemented by
`agent.tool_use.calls.ToolCalls`) and its team calls (`RunTeam`, implemented by
`agent.teams.delegation.TeamCalls`), and a replay's (`RunReplay`, implemented by
`agent.tool_use.replaying.Replaying`). The run names these interfaces, not the classes,
which work through the run itself: the floors above the run implement them, and the
run's factory (`agent.scheduling.factory`) hands them to it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from agent.limits import LimitReached
from core.identity import CallContext
from records import events as ev
from records.checkpoints import JournalEntry
from records.messages import ToolDefinition
from records.tasks import Task, TokenUsage
from records.tools.invocation import Invocation
from records.tools.model import ToolSpec
from records.tools.outcomes import ToolCallError, ToolCallResult
from records.traces.model import ToolSource
from records.traces.replays import ReplayInfo

TeamOutcome = tuple[Any, ToolCallError | None, str]
"""A team call's (data, error, the text the model sees)."""

PlannedCall = tuple[str, dict[str, Any] | None, str]
"""A call a mode wants: tool name, arguments (None when they did not parse), and why not."""


class RunTools(Protocol):
    """The tool calls of one run (`agent.tool_use.calls.ToolCalls`)."""

    specs: dict[str, ToolSpec]
    """The tools the task may use, by name, as it was given them."""
    journal: dict[str, JournalEntry]
    """The crash journal: calls by their key, saved with every checkpoint."""
    replay: RunReplay | None
    """For a replay (ReplayTask): its calls answered from the recording; None otherwise."""

    def definitions(self, names: Sequence[str] | None = None) -> list[ToolDefinition]:
        """The tools (all, or those `names`) as the model is offered them."""
        ...

    @property
    def failed_in_a_row(self) -> int:
        """Calls that failed one after another: enough of them stop the run."""
        ...

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


class RunTeam(Protocol):
    """One run's delegations (`agent.teams.delegation.TeamCalls`): the run holds them, its
    tool calls and a router's hand-over make them, a panel reports through them."""

    def handles(self, spec: ToolSpec | None) -> bool:
        """Whether a call of `spec` is a team call (a delegation or a panel)."""
        ...

    def expect(self, count: int) -> None:
        """`count` team calls are about to start together (they share the budget left)."""
        ...

    async def call(
        self, call_id: str, key: str, name: str, arguments: dict[str, Any]
    ) -> TeamOutcome:
        """Run the delegation (or panel) `name` asks for; every outcome is an observation."""
        ...

    async def run_child(
        self, call_id: str, call_key: str, agent_id: str, goal: str, panel: str = ""
    ) -> Task | str:
        """A child task of `agent_id` with `goal`, run to its end; why not, when it could
        not start."""
        ...

    async def emit(self, payload: ev.EventPayload) -> None: ...

    async def spent(self, usage: TokenUsage, model: str) -> None:
        """Tokens a team call spent on a model itself (a panel's judge)."""
        ...


class RunReplay(Protocol):
    """A replay's tool calls (`agent.tool_use.replaying.Replaying`): answered from the
    recorded task's trace."""

    sources: dict[str, ToolSource]
    """Where each call's result came from, by call id."""

    async def answer(
        self, invocation: Invocation, spec: ToolSpec | None, place: str, context: CallContext
    ) -> ToolCallResult | None:
        """The call's result from the recording, or that it was not run; None when it is
        to go the usual way (run live, or refused). `place`: its journal key."""
        ...

    async def report(self, answer: str) -> ReplayInfo:
        """The replay's report, as it ended with `answer`."""
        ...
