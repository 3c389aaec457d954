"""What a run says and keeps: its events in the task's log, the task's record saved, its
plan and progress, and what it has gathered and is sent (notes, history, recalled
memories, tool calls, artifacts written, citations, the URLs the model knows by
placeholder)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from agent import metrics, prompts
from agent.guardrails.runs import RunGuard
from agent.limits import LimitReached
from agent.running.event_writer import EventWriter
from agent.running.state import RunState
from agent.running.steering import Steering
from agent.running.urls import UrlBook
from records import events as ev
from records.checkpoints import RunCheckpoint, TakenSteer
from records.conversations.history import History
from records.guardrails import Point
from records.messages import Message
from records.plan import Plan
from records.tasks import Citation, StopReason, Task
from stores.tasks.base import TaskStore


@dataclass(slots=True)
class Transcript:
    """A run's events and record, and what it has gathered."""

    task: Task
    """The task as it runs (the run's own object: what is saved)."""
    store: TaskStore
    trace_id: str
    state: RunState = field(default_factory=RunState)
    """The run's standing: not a stored task (the Plan RPC) means no events, no saves; a
    woken run's iteration taken up again was announced already."""
    instructions: str = ""
    """The agent's instructions for this task (rendered), put before every system prompt."""
    notes: list[str] = field(default_factory=list)
    """Results gathered so far, for a partial answer if a limit stops the task."""
    history: History | None = None
    """The earlier turns of the task's conversation it is sent; None outside one."""
    recalled: str = ""
    """The user's long-term memories recalled for the task, as a delimited data block
    (`agent.knowledge.recall`); sent after the system message."""
    tool_log: list[ev.TurnEvent] = field(default_factory=list)
    """This run's tool call events as written to the log (redacted) and the steers it took:
    what its turn in a conversation keeps of them, without reading the log back."""
    artifacts_written: list[ev.ArtifactUpdated] = field(default_factory=list)
    """The artifact versions this run wrote (for its final answer: `agent.running.artifacts`)."""
    citations: list[Citation] = field(default_factory=list)
    """The passages its `search_knowledge` calls retrieved (`agent.running.citations`)."""
    urls: UrlBook = field(default_factory=lambda: UrlBook(0))
    """Long URLs the model sees as placeholders (`agent.running.urls`)."""
    guard: RunGuard | None = None
    """Its task's guardrails (`agent.guardrails.runs`); None: it has none."""
    events: EventWriter = field(init=False)
    """Writes its events in order, deltas coalesced (`writing` sets its limits)."""
    steers: Steering = field(init=False)
    """The user messages added to the task while it works (`agent.running.steering`)."""

    def __post_init__(self) -> None:  # every delta its own event until `writing` says
        self.events = EventWriter(self._append, flush_seconds=0.0, max_chars=1, guard=self.guard)
        self.steers = Steering(self.store, self.task, self._steer_taken)

    def writing(self, flush_seconds: float, max_chars: int) -> None:
        """Coalesce text deltas within `flush_seconds` and up to `max_chars` characters."""
        self.events = EventWriter(
            self._append, flush_seconds=flush_seconds, max_chars=max_chars, guard=self.guard
        )

    def resume(self, resumed: RunCheckpoint) -> None:
        """Take up what a checkpoint kept of what the run had gathered."""
        self.notes = list(resumed.notes)
        self.history = resumed.history
        self.citations = list(resumed.citations)
        self.artifacts_written = list(resumed.artifacts_written)
        self.steers.resume(resumed.steers)

    def goal(self) -> str:
        """The task's text and the steers taken so far (what a mode that builds each prompt
        afresh, such as plan-and-execute, sends as the task)."""
        return prompts.steered_goal(self.task.goal, [s.message for s in self.steers.taken])

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

    async def emit(self, payload: ev.EventPayload) -> None:
        """Write an event to the task's log (text deltas may be coalesced: `EventWriter`);
        a step's output carries URLs, not the model's placeholders for them."""
        if self.state.persist:
            if isinstance(payload, ev.StepFinished) and self.urls.urls:
                payload = replace(payload, output=self.urls.restore(payload.output))
            await self.events.emit(payload)

    async def take_steers(self, step_id: str, *, look: bool = False) -> list[TakenSteer]:
        """The steers not taken yet (`Steering.take`); none for work that is not a stored
        task."""
        if not self.state.persist:
            return []
        await self.events.flush()
        return await self.steers.take(step_id, look=look)

    async def _steer_taken(self, steer: TakenSteer, step_id: str) -> TakenSteer:
        """Announce a steer taken; what a person sends in is the task's input too: it is
        checked by the input guardrails (redacted, or the task blocked) as it is taken."""
        if self.guard is not None and self.guard.watches(Point.INPUT):
            message = await self.guard.text(Point.INPUT, steer.message, self.emit)
            steer = replace(steer, message=message)
        if self.task.conversation_id:
            self.tool_log.append(ev.TaskSteered(steer.steer_id, "", steer.message))
        await self.emit(ev.SteerApplied(steer.steer_id, step_id, steer.sequence))
        return steer

    async def _append(self, payload: ev.EventPayload) -> None:
        expected = self.task.last_sequence + 1
        event = await self.store.append_event(self.task.task_id, self.trace_id, payload)
        self.steers.appended(expected, event.sequence)
        self.task.last_sequence = max(self.task.last_sequence, event.sequence)
        if (
            isinstance(payload, ev.ToolCallStarted | ev.ToolCallFinished)
            and self.task.conversation_id
        ):
            self.tool_log.append(payload)
        elif isinstance(payload, ev.ArtifactUpdated):
            self.artifacts_written.append(payload)
        metrics.observe_event(self.task, payload)
        if self.state.recording is not None:  # a verdict or a decision is traced
            self.state.recording.event(payload)

    async def save(self) -> None:
        if self.state.persist:
            await self.store.update(self.task)

    async def set_plan(self, plan: Plan, reason: str = "") -> None:
        plan = self.urls.restore_plan(plan)  # the plan as the caller sees it: real URLs
        first = self.task.plan is None
        self.task.plan = plan
        self.task.total_steps = len(plan.steps) + (0 if first else self.task.current_step)
        await self.save()
        await self.emit(ev.PlanCreated(plan) if first else ev.PlanRevised(plan, reason))

    async def record_progress(self, current: int, total: int) -> None:
        self.task.current_step = current
        self.task.total_steps = total
        await self.save()

    async def begin_iteration(
        self, iteration: int, last: bool, again: bool = False
    ) -> tuple[str, float]:
        """Announce a ReAct iteration; returns its step id and start time. An iteration
        taken up `again` by a woken run (its calls waited) was announced already."""
        step_id = f"iteration-{iteration}"
        if not (again and self.state.woken):
            description = "final answer" if last else "reason and act"
            await self.emit(ev.StepStarted(step_id, description, iteration))
        return step_id, time.perf_counter()

    async def iteration_timed_out(
        self, step_id: str, iteration: int, started: float, limit_seconds: float
    ) -> LimitReached:
        """Report a timed-out iteration; returns the limit signal to raise."""
        await self.emit(ev.StepFinished(step_id, False, "timed out", time.perf_counter() - started))
        return LimitReached(
            StopReason.STEP_TIMEOUT,
            f"iteration {iteration} took longer than {limit_seconds:g} s",
        )
