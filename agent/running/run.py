"""One running task: the context every mode works through.

`TaskRun` holds the task while it runs and is the only way a mode talks to the outside:
model calls (streamed as events, counted against the token budget), tool calls (through
the registry, with the caller's permissions, concurrently but bounded: `tools`), and
events (`transcript`). What it holds is cut by what it is: its identity and limits
(`task`, `call`, `config`, `bounds`), what it says and gathers (`transcript`), its
standing (`state`: stored, checkpointed, parked, resumed), its tool calls and its team.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from agent.limits import EngineConfig
from agent.llm import usage as embedding_usage
from agent.llm.roles import ModelRoles, RoleName
from agent.llm.window.tokens import ESTIMATE, TokenCounter
from agent.running import model_calls
from agent.running.artifacts import RunArtifacts
from agent.running.seams import RunTeam, RunTools
from agent.running.state import RunBounds, RunState
from agent.running.transcript import Transcript
from agent.spending.calls import Metering
from core.identity import CallContext
from records import events as ev
from records import serialization
from records.agents.knowledge_keys import preferring
from records.checkpoints import RunCheckpoint
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.mode_state import ModeState
from records.tasks import Task, TokenUsage

T = TypeVar("T")


@dataclass(slots=True)
class TaskRun:
    task: Task
    call: CallContext
    models: ModelRoles
    config: EngineConfig
    bounds: RunBounds
    """The tokens and the time it has."""
    transcript: Transcript
    """Its events, its record, and what it has gathered and is sent."""
    state: RunState = field(default_factory=RunState)
    """Whether it is a stored task, where it is checkpointed and parked, what it resumes."""
    counter: TokenCounter = ESTIMATE
    """Counts tokens for the model that answers the task (`agent.llm.window.tokens`)."""
    ran_here: bool = True
    """False for a run made only to end a task another process ran (an orphan that cannot
    be resumed): none of the task's work, nor its tool calls, are this run's."""
    team: RunTeam | None = None
    """Its delegations to sub-agents and panels (`agent.teams`); None: it has none."""
    meter: Metering | None = None
    """Prices, budgets and the usage ledger its model calls go through (`agent.spending`);
    None: they are not metered (an engine built without one, as in tests)."""
    artifacts: RunArtifacts | None = None
    """Its task tree's artifacts: its input parts, and the images its messages refer to,
    read for the models that see them (None: no artifact store; images go as notes)."""
    handing_over: bool = False
    """Set when the run is stopped for another process to resume it (not cancelled): its
    children go on."""
    tools: RunTools = field(init=False)
    """Its tool calls, their tools and journal, and the wait for approvals: an
    `agent.tool_use.calls.ToolCalls`, given by the run's factory as soon as it makes the run."""

    @property
    def delegates(self) -> tuple[str, ...]:
        """Agents the router may hand the task to (named in its prompt): its agent's
        delegates the tenant has."""
        return tuple(d.agent_id for d in self.task.delegates)

    def wait_left(self) -> float:
        """Seconds the task may still wait parked in all (its wait limit: the caller's
        `wait_timeout`, capped by the server's)."""
        limit = self.config.waits.max_wait_seconds
        asked = self.task.wait_limit_seconds
        if asked is not None and 0 < asked < limit:
            limit = asked
        return max(0.0, limit - self.bounds.waited)

    def tool_context(self) -> CallContext:
        """The call a tool call of the task is made under: what is left of the task's time
        bounds it, and it names the task, its artifacts and its tree."""
        if not self.state.persist:
            return self.call
        deadline = self.bounds.deadline_at
        left = None if deadline is None else max(0.0, deadline - time.time())
        task = self.task
        return replace(
            self.call,
            task_id=task.task_id,
            artifact_space=task.root,  # a tree's artifacts are its root's (`artifacts`)
            parent_task_id=task.parent_task_id,
            root_task_id=task.root if task.parent_task_id else "",
            deadline_seconds=left,
        )

    # -- checkpoints -----------------------------------------------------------

    async def checkpoint(self, mode_state: ModeState | None = None) -> None:
        """Record progress: the mode's state (copies, never live objects) and the journal."""
        state = self.state
        if mode_state is not None:
            state.mode = mode_state
        if state.checkpoints is None or not state.persist:
            return
        async with state.lock:
            progress = self.progress(new_state=mode_state is not None)
            await state.checkpoints.save(
                self.task.tenant, self.task.task_id, serialization.dumps(progress)
            )

    def progress(self, parked_at: float | None = None, *, new_state: bool = False) -> RunCheckpoint:
        """The run's progress as a checkpoint; `parked_at` when the task parks: it then
        holds the mode's state as the model asked for the calls that wait. `new_state`: the
        mode's state was built just now (it holds every steer taken so far)."""
        mode_state = self.state.mode
        if parked_at is not None and self.state.pending is not None:
            mode_state, new_state = self.state.pending, True
        said, bounds = self.transcript, self.bounds
        return RunCheckpoint(
            principal=self.call.principal,
            token_budget=bounds.token_budget,
            deadline_at=bounds.deadline_at,
            usage=self.task.usage,
            completed_steps=self.task.current_step,
            notes=tuple(said.notes),
            journal=dict(self.tools.journal),
            url_token=said.urls.token,
            urls=dict(said.urls.urls),
            mode_state=mode_state,
            history=said.history,
            failed_in_a_row=self.tools.failed_in_a_row,
            parked_at=parked_at,
            waited_seconds=bounds.waited,
            citations=tuple(said.citations),
            artifacts_written=tuple(said.artifacts_written),
            steers=said.steers.kept(new_state),
        )

    # -- models ----------------------------------------------------------------

    async def model(
        self,
        role: RoleName,
        step_id: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
        stream: bool = True,
    ) -> ModelResponse:
        """One model call, its deltas streamed as events, its tokens counted against the
        budget (`agent.running.model_calls`)."""
        return await model_calls.call(self, role, step_id, messages, tools, settings, stream)

    async def embedding_work(self, work: Awaitable[T]) -> T:
        """Await `work`, charging the embedding tokens it spent to the task's budget (and
        letting knowledge searches in it follow the agent's `knowledge:` settings)."""
        agent = self.task.agent
        with embedding_usage.counting() as spent, preferring(agent.knowledge if agent else None):
            try:
                return await work
            finally:
                await self.charge_embeddings(spent.tokens)

    async def charge_embeddings(self, tokens: int) -> None:
        """Count embedding tokens as prompt tokens of the task (reported, budgeted)."""
        if tokens and self.state.persist:
            call = TokenUsage(prompt_tokens=tokens)
            self.task.usage = self.task.usage + call
            await self.transcript.emit(
                ev.UsageReported("embeddings", "embeddings", call, self.task.usage)
            )
