"""One running task: the context every mode works through.

`TaskRun` owns the task's mutable state while it runs and is the only way a
mode talks to the outside: model calls (streamed as events, counted against
the token budget), tool calls (through the registry, with the caller's
permissions, concurrently but bounded), and events.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import structlog

from agent import metrics
from agent.limits import EngineConfig, LimitReached
from agent.llm import usage as embedding_usage
from agent.llm.roles import ModelRoles, RoleName
from agent.llm.window.tokens import ESTIMATE, TokenCounter
from agent.running import model_calls
from agent.running.event_writer import EventWriter
from agent.running.seams import RunTeam, RunTools
from agent.running.urls import UrlBook
from core.identity import CallContext
from records import events as ev
from records import serialization
from records.agents.knowledge_keys import preferring
from records.checkpoints import RunCheckpoint
from records.conversations.history import History
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.mode_state import ModeState, from_legacy
from records.plan import Plan
from records.tasks import Citation, StopReason, Task, TokenUsage
from records.tools.model import ToolSpec
from stores.checkpoints.base import CheckpointStore
from stores.tasks.base import TaskStore
from stores.waits.base import WaitStore
from tools.registry import ToolRegistry

log = structlog.get_logger(__name__)
T = TypeVar("T")


@dataclass(slots=True)
class TaskRun:
    task: Task
    call: CallContext
    models: ModelRoles
    registry: ToolRegistry
    store: TaskStore
    config: EngineConfig
    token_budget: int
    tool_specs: dict[str, ToolSpec]
    """The tools this task may use, by name."""
    notes: list[str] = field(default_factory=list)
    """Results gathered so far, for a partial answer if a limit stops the task."""
    persist: bool = True
    """False for work that is not a stored task (the Plan RPC): no events, no saves."""
    checkpoints: CheckpointStore | None = None
    """Where progress is checkpointed; None when no other process could resume the task."""
    deadline_at: float | None = None
    """Wall-clock time (epoch seconds) of the caller's deadline, if it set one."""
    resumed: RunCheckpoint | None = None
    """The checkpoint this run resumes from, if it does."""
    ran_here: bool = True
    """False for a run made only to end a task another process ran (an orphan that cannot
    be resumed): none of the task's work, nor its tool calls, are this run's."""
    waits: WaitStore | None = None
    """Where its waits are kept (`records.waits`): what a person, a child or a remote
    agent leaves there wakes it. None: it cannot wait (calls needing a person are
    refused)."""
    waited: float = 0.0
    """Seconds it waited parked before this run (its wait limit counts them)."""
    nudge: Callable[[str, str, str], Awaitable[None]] | None = None
    """Nudges a parked task's wait (tenant, task, slot): a child's parent, when the child
    begins or stops waiting for a person (`agent.scheduling.parking`)."""
    instructions: str = ""
    """The agent's instructions for this task (rendered), put before every system prompt."""
    counter: TokenCounter = ESTIMATE
    """Counts tokens for the model that answers the task (`agent.llm.window.tokens`)."""
    history: History | None = None
    """The earlier turns of the task's conversation it is sent; None outside one."""
    recalled: str = ""
    """The user's long-term memories recalled for the task, as a delimited data block
    (`agent.knowledge.recall`); sent after the system message."""
    tool_log: list[ev.ToolCallStarted | ev.ToolCallFinished] = field(default_factory=list)
    """This run's tool call events as written to the log (redacted): what its turn in a
    conversation keeps of them, without reading the log back."""
    artifacts_written: list[ev.ArtifactUpdated] = field(default_factory=list)
    """The artifact versions this run wrote (for its final answer: `agent.running.artifacts`)."""
    citations: list[Citation] = field(default_factory=list)
    """The passages its `search_knowledge` calls retrieved (`agent.running.citations`)."""
    team: RunTeam | None = None
    """Its delegations to sub-agents and panels (`agent.teams`); None: it has none."""
    handing_over: bool = False
    """Set when the run is stopped for another process to resume it (not cancelled): its
    children go on."""
    urls: UrlBook = field(init=False)
    """Long URLs the model sees as placeholders (`agent.running.urls`)."""
    tools: RunTools = field(init=False)
    """Its tool calls (and their journal, and the wait for approvals): an
    `agent.tool_use.calls.ToolCalls`, given by the run's factory as soon as it makes the run."""
    pending_state: ModeState | None = field(default=None, init=False)
    """The mode's state as the model asked for the calls being made (not yet a checkpoint):
    what a call that waits for ResumeTask is checkpointed with (`agent.tool_use.resume`)."""
    _mode_state: ModeState | None = field(init=False)
    _checkpoint_lock: asyncio.Lock = field(init=False)
    _events: EventWriter = field(init=False)

    def __post_init__(self) -> None:
        self._events = EventWriter(
            self._append,
            flush_seconds=self.config.delta_flush_seconds,
            max_chars=self.config.delta_max_chars,
        )
        self._checkpoint_lock = asyncio.Lock()
        resumed = self.resumed
        self.urls = UrlBook(
            self.config.url_placeholder_min_chars,
            resumed.url_token if resumed and resumed.url_token else None,
            resumed.urls if resumed else None,
        )
        self._mode_state = self.resume_state()
        if resumed is not None:
            self.notes = list(resumed.notes)
            self.history = resumed.history
            self.citations = list(resumed.citations)
            self.artifacts_written = list(resumed.artifacts_written)

    def system(self, prompt: str) -> Message:
        """The system message of a model call: the agent's instructions, then `prompt`."""
        return Message(
            "system", f"{self.instructions}\n\n{prompt}" if self.instructions else prompt
        )

    def opening(self, prompt: str, user: str) -> list[Message]:
        """The first messages of a conversation with the model: the system message (the
        agent's instructions and `prompt`), what it is sent of its conversation (the
        running summary, as data, and the earlier turns), and the `user` message."""
        system = [self.system(prompt)]
        if self.recalled:  # data of earlier conversations, in a message of its own
            system.append(Message("user", self.recalled))
        carried = [Message(m["role"], str(m["content"])) for m in self.task.carried]
        history = self.history
        if history is None:
            return [*system, *carried, Message("user", user)]
        return [*system, *carried, *history.sent, Message("user", user)]

    @property
    def delegates(self) -> tuple[str, ...]:
        """Agents the router may hand the task to (named in its prompt): its agent's
        delegates the tenant has."""
        return tuple(d.agent_id for d in self.task.delegates)

    @property
    def goal(self) -> str:
        """What the caller asked for."""
        return self.task.goal

    @property
    def context(self) -> dict[str, Any]:
        """The caller's context for the task."""
        return self.task.context

    @property
    def max_iterations(self) -> int:
        return self.task.max_iterations

    @property
    def can_wait(self) -> bool:
        """Whether the run may park to wait (a stored task with a wait store)."""
        return self.persist and self.waits is not None

    def wait_left(self) -> float:
        """Seconds the task may still wait parked in all (its wait limit: the caller's
        `wait_timeout`, capped by the server's)."""
        limit = self.config.max_wait_seconds
        asked = self.task.wait_limit_seconds
        if asked is not None and 0 < asked < limit:
            limit = asked
        return max(0.0, limit - self.waited)

    # -- checkpoints -----------------------------------------------------------

    @property
    def durable(self) -> bool:
        """Whether progress is checkpointed for another process to resume."""
        return self.persist and self.checkpoints is not None

    def resume_state(self) -> ModeState | None:
        """The mode's state at the checkpoint this run resumes from (None for a new run)."""
        saved = self.resumed.mode_state if self.resumed is not None else None
        return from_legacy(saved) if isinstance(saved, dict) else saved

    async def checkpoint(self, mode_state: ModeState | None = None) -> None:
        """Record progress: the mode's state (copies, never live objects) and the journal."""
        if mode_state is not None:
            self._mode_state = mode_state
        if self.checkpoints is None or not self.persist:
            return
        async with self._checkpoint_lock:
            await self.checkpoints.save(
                self.task.tenant, self.task.task_id, serialization.dumps(self.progress())
            )

    def progress(self, parked_at: float | None = None) -> RunCheckpoint:
        """The run's progress as a checkpoint; `parked_at` when the task parks: it then
        holds the mode's state as the model asked for the calls that wait."""
        mode_state = self._mode_state
        if parked_at is not None and self.pending_state is not None:
            mode_state = self.pending_state
        return RunCheckpoint(
            principal=self.call.principal,
            token_budget=self.token_budget,
            deadline_at=self.deadline_at,
            usage=self.task.usage,
            completed_steps=self.task.current_step,
            notes=tuple(self.notes),
            journal=dict(self.tools.journal),
            url_token=self.urls.token,
            urls=dict(self.urls.urls),
            mode_state=mode_state,
            history=self.history,
            failed_in_a_row=self.tools.failed_in_a_row,
            parked_at=parked_at,
            waited_seconds=self.waited,
            citations=tuple(self.citations),
            artifacts_written=tuple(self.artifacts_written),
        )

    # -- events --------------------------------------------------------------

    async def emit(self, payload: ev.EventPayload) -> None:
        """Write an event to the task's log (text deltas may be coalesced: `EventWriter`);
        a step's output carries URLs, not the model's placeholders for them."""
        if self.persist:
            if isinstance(payload, ev.StepFinished) and self.urls.urls:
                payload = replace(payload, output=self.urls.restore(payload.output))
            await self._events.emit(payload)

    async def _append(self, payload: ev.EventPayload) -> None:
        event = await self.store.append_event(self.task.task_id, self.call.trace_id, payload)
        self.task.last_sequence = max(self.task.last_sequence, event.sequence)
        if (
            isinstance(payload, ev.ToolCallStarted | ev.ToolCallFinished)
            and self.task.conversation_id
        ):
            self.tool_log.append(payload)
        elif isinstance(payload, ev.ArtifactUpdated):
            self.artifacts_written.append(payload)
        metrics.observe_event(self.task, payload)

    async def save(self) -> None:
        if self.persist:
            await self.store.update(self.task)

    async def set_plan(self, plan: Plan, reason: str = "") -> None:
        plan = self.urls.restore_plan(plan)  # the plan as the caller sees it: real URLs
        first = self.task.plan is None
        self.task.plan = plan
        self.task.total_steps = len(plan.steps) + (0 if first else self.task.current_step)
        await self.save()
        await self.emit(ev.PlanCreated(plan) if first else ev.PlanRevised(plan, reason))

    async def begin_iteration(
        self, iteration: int, last: bool, again: bool = False
    ) -> tuple[str, float]:
        """Announce a ReAct iteration; returns its step id and start time. An iteration
        taken up `again` by a woken run (its calls waited) was announced already."""
        step_id = f"iteration-{iteration}"
        if not (again and self.woken):
            description = "final answer" if last else "reason and act"
            await self.emit(ev.StepStarted(step_id, description, iteration))
        return step_id, time.perf_counter()

    @property
    def woken(self) -> bool:
        """Whether this run picks a parked task up where it waited (not a takeover)."""
        return self.resumed is not None and self.resumed.parked_at is not None

    async def record_progress(self, current: int, total: int) -> None:
        self.task.current_step = current
        self.task.total_steps = total
        await self.save()

    async def iteration_timed_out(
        self, step_id: str, iteration: int, started: float
    ) -> LimitReached:
        """Report a timed-out iteration; returns the limit signal to raise."""
        await self.emit(ev.StepFinished(step_id, False, "timed out", time.perf_counter() - started))
        return LimitReached(
            StopReason.STEP_TIMEOUT,
            f"iteration {iteration} took longer than {self.config.step_timeout_seconds:g} s",
        )

    # -- models ----------------------------------------------------------------

    def tool_definitions(self, names: Sequence[str] | None = None) -> list[ToolDefinition]:
        chosen = self.tool_specs if names is None else {n: self.tool_specs[n] for n in names}
        return [ToolDefinition(s.name, s.description, s.parameters) for s in chosen.values()]

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
        if tokens and self.persist:
            call = TokenUsage(prompt_tokens=tokens)
            self.task.usage = self.task.usage + call
            await self.emit(ev.UsageReported("embeddings", "embeddings", call, self.task.usage))
