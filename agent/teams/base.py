"""What the team modules share, below all of them: a team call's outcome, the engine as
delegation sees it (`ChildTasks`), and a run's team calls as the run, its tool calls and
its panels use them (`RunTeam`, implemented by `agent.teams.delegation.TeamCalls`), so
that none of them imports the module that uses it back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from agent.scheduling.requests import TaskRequest
from core.identity import CallContext
from records import events as ev
from records.tasks import Task, TokenUsage
from records.tools.model import ToolSpec
from records.tools.outcomes import ToolCallError

Outcome = tuple[Any, ToolCallError | None, str]
"""A team call's (data, error, the text the model sees)."""


class ChildTasks(Protocol):
    """What delegation needs of the engine (`agent.engine.Engine`)."""

    async def start(self, request: TaskRequest, call: CallContext) -> Task: ...

    async def find(self, tenant: str, task_id: str) -> Task: ...

    async def cancel_quietly(self, tenant: str, task_id: str, reason: str) -> None: ...

    def events(self, tenant: str, task_id: str) -> AsyncIterator[ev.TaskEvent]: ...


class RunTeam(Protocol):
    """One run's delegations (`agent.teams.delegation.TeamCalls`): the run holds them, its
    tool calls and a router's hand-over make them, a panel reports through them."""

    def handles(self, spec: ToolSpec | None) -> bool:
        """Whether a call of `spec` is a team call (a delegation or a panel)."""
        ...

    def expect(self, count: int) -> None:
        """`count` team calls are about to start together (they share the budget left)."""
        ...

    async def call(self, call_id: str, key: str, name: str, arguments: dict[str, Any]) -> Outcome:
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
