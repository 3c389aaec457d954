"""Events: small frozen types joined in one union, each in a per-task log envelope."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from records.guardrails.events import GuardrailDecided as GuardrailDecided
from records.inbox.wait_events import ApprovalDecided as ApprovalDecided
from records.inbox.wait_events import ApprovalRequested as ApprovalRequested
from records.inbox.wait_events import DeadlinePassed as DeadlinePassed
from records.inbox.wait_events import InputProvided as InputProvided
from records.inbox.wait_events import InputRequested as InputRequested
from records.inbox.wait_events import ToolCallResumable as ToolCallResumable
from records.plan import Plan
from records.tasks import Citation, StopReason, TaskStatus, TokenUsage
from records.teams.events import PanelDecided as PanelDecided
from records.teams.events import PanelVote as PanelVote
from records.teams.events import SubtaskFinished as SubtaskFinished
from records.teams.events import SubtaskStarted as SubtaskStarted
from records.teams.events import SubtaskWaiting as SubtaskWaiting
from records.tools.outcomes import ToolCallError


@dataclass(frozen=True, slots=True)
class StatusChanged:
    current: TaskStatus
    previous: TaskStatus | None = None
    detail: str = ""
    stop_reason: StopReason | None = None
    type: Literal["status_changed"] = "status_changed"


@dataclass(frozen=True, slots=True)
class PlanCreated:
    plan: Plan
    type: Literal["plan_created"] = "plan_created"


@dataclass(frozen=True, slots=True)
class PlanRevised:
    plan: Plan
    reason: str
    type: Literal["plan_revised"] = "plan_revised"


@dataclass(frozen=True, slots=True)
class StepStarted:
    step_id: str
    description: str
    index: int
    type: Literal["step_started"] = "step_started"


@dataclass(frozen=True, slots=True)
class StepFinished:
    step_id: str
    success: bool
    output: str
    duration_seconds: float
    type: Literal["step_finished"] = "step_finished"


@dataclass(frozen=True, slots=True)
class TextDelta:
    step_id: str
    text: str
    type: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    step_id: str
    text: str
    type: Literal["reasoning_delta"] = "reasoning_delta"


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    call_id: str
    step_id: str
    tool_name: str
    arguments: dict[str, Any]
    type: Literal["tool_call_started"] = "tool_call_started"


@dataclass(frozen=True, slots=True)
class ToolCallFinished:
    call_id: str
    tool_name: str
    result: Any
    error: ToolCallError | None
    duration_seconds: float
    text: str
    cached: bool = False
    """The result of an earlier call, from the cache of tool results: the tool did not run."""
    type: Literal["tool_call_finished"] = "tool_call_finished"


@dataclass(frozen=True, slots=True)
class ToolProgress:
    """A running tool call reported how far it is (`tools.progress`); rate-limited, the
    latest report of an interval standing for all of them."""

    call_id: str
    tool_name: str
    progress: float
    total: float | None = None
    message: str = ""
    reports: int = 1
    """The reports this event stands for (the earlier ones of its interval are dropped)."""
    type: Literal["tool_progress"] = "tool_progress"


@dataclass(frozen=True, slots=True)
class ReflectionVerdict:
    step_id: str
    accuracy: float
    completeness: float
    relevance: float
    logic: float
    confidence: float
    passed: bool
    decision: Literal["accept", "revise", "replan"]
    feedback: str
    type: Literal["reflection"] = "reflection"


@dataclass(frozen=True, slots=True)
class TaskSteered:
    """A user message added to the task while it works (`SteerTask`); taken at its next
    safe point (`SteerApplied`)."""

    steer_id: str
    steered_by: str
    message: str
    type: Literal["task_steered"] = "task_steered"


@dataclass(frozen=True, slots=True)
class SteerApplied:
    """The task took a steer: the next model request of `step_id` carries it."""

    steer_id: str
    step_id: str
    steer_sequence: int
    type: Literal["steer_applied"] = "steer_applied"


@dataclass(frozen=True, slots=True)
class UsageReported:
    step_id: str
    role: str
    call: TokenUsage
    task_total: TokenUsage
    model: str = ""
    """The model that answered."""
    estimated: bool = False
    """The endpoint reported no usage: `call` is an estimate (`agent.llm.window.tokens`)."""
    provider: str = ""
    """The provider that answered (empty: the server's own endpoint)."""
    type: Literal["usage"] = "usage"


@dataclass(frozen=True, slots=True)
class HistoryCompacted:
    """Older turns of the task's conversation were folded into its running summary."""

    messages_summarized: int
    summarized_through: int
    """Messages 1..this are covered by the summary now."""
    summary_tokens: int
    history_tokens: int
    """Tokens of the history the task is sent (the summary and the turns kept)."""
    tokens_saved: int
    """Tokens of the conversation's earlier messages that are not sent."""
    type: Literal["history_compacted"] = "history_compacted"


@dataclass(frozen=True, slots=True)
class ArtifactRef:
    """One version of an artifact of the task's tree (`stores.artifacts`)."""

    name: str
    version: int
    media_type: str
    size: int


@dataclass(frozen=True, slots=True)
class ArtifactUpdated:
    """The task wrote a new version of an artifact of its tree."""

    name: str
    version: int
    media_type: str
    size: int
    writer_task_id: str
    type: Literal["artifact_updated"] = "artifact_updated"


@dataclass(frozen=True, slots=True)
class ContextFitted:
    """A model request was cut to fit the model's context window (`agent.running.context_fit`)."""

    step_id: str
    role: str
    model: str
    context_window: int
    prompt_tokens: int
    """The prompt as sent, counted."""
    max_tokens: int
    """The reply limit sent with it."""
    saved_tokens: int
    """Tokens cut from the prompt."""
    clipped_messages: int
    """Older observations clipped, each with a marker."""
    dropped_messages: int
    """Older messages left out whole."""
    retry: bool = False
    """The endpoint said the context was too long: compacted once more and sent again."""
    dropped_images: int = 0
    """Images left out whole, oldest first, each replaced by a note naming its artifact."""
    type: Literal["context_fitted"] = "context_fitted"


@dataclass(frozen=True, slots=True)
class StreamDiscarded:
    """The text deltas of `step_id` streamed so far are void: their provider failed
    mid-reply and the next one in the agent's fallback chain answers from the start."""

    step_id: str
    provider: str
    """The provider that failed."""
    model: str
    reason: str
    type: Literal["stream_discarded"] = "stream_discarded"


@dataclass(frozen=True, slots=True)
class RouteChosen:
    """Auto mode's router model decided how to work on the task (`agent.modes.llm_router`)."""

    decision: str
    """"answer", "function_calling", "plan_and_execute", "delegate", or "heuristic" when the
    router gave no usable answer and the rule decided."""
    mode: str
    """The mode the task runs in ("" when the router answered it)."""
    delegate: str = ""
    """The agent the router named for `delegate`."""
    reason: str = ""
    handled: bool = True
    """False when the router named a delegate but this server cannot hand tasks over."""
    duration_seconds: float = 0.0
    """The router's added latency."""
    type: Literal["route_chosen"] = "route_chosen"


@dataclass(frozen=True, slots=True)
class FinalAnswer:
    text: str
    stop_reason: StopReason
    stop_detail: str = ""
    partial: bool = False
    """A limit cut the work short (`stop_reason` names it)."""
    artifacts: tuple[ArtifactRef, ...] = ()
    """The artifacts the task wrote, each at the version it wrote last."""
    citations: tuple[Citation, ...] = ()
    """The knowledge base passages the task retrieved (`agent.running.citations`)."""
    type: Literal["final_answer"] = "final_answer"


@dataclass(frozen=True, slots=True)
class ErrorOccurred:
    reason: str
    message: str
    fatal: bool
    step_id: str = ""
    type: Literal["error"] = "error"


@dataclass(frozen=True, slots=True)
class TaskResumed:
    """Another process took the task over from its last checkpoint."""

    reason: str
    replica: str
    completed_steps: int
    type: Literal["resumed"] = "resumed"


EventPayload = (
    StatusChanged
    | PlanCreated
    | PlanRevised
    | StepStarted
    | StepFinished
    | TextDelta
    | ReasoningDelta
    | ToolCallStarted
    | ToolCallFinished
    | ToolProgress
    | ToolCallResumable
    | ReflectionVerdict
    | ApprovalRequested
    | ApprovalDecided
    | DeadlinePassed
    | InputRequested
    | InputProvided
    | TaskSteered
    | SteerApplied
    | GuardrailDecided
    | UsageReported
    | HistoryCompacted
    | ArtifactUpdated
    | ContextFitted
    | RouteChosen
    | StreamDiscarded
    | FinalAnswer
    | ErrorOccurred
    | TaskResumed
    | SubtaskStarted
    | SubtaskFinished
    | SubtaskWaiting
    | PanelVote
    | PanelDecided
)


@dataclass(frozen=True, slots=True)
class TaskEvent:
    """An event in a task's log."""

    task_id: str
    sequence: int
    """Strictly increasing per task, from 1."""
    timestamp: datetime
    trace_id: str
    payload: EventPayload = field(compare=False)

    @property
    def terminal(self) -> bool:
        """True for the last event of a task's log."""
        return isinstance(self.payload, StatusChanged) and self.payload.current.terminal


TurnEvent = ToolCallStarted | ToolCallFinished | TaskSteered
"""What a task's turn in its conversation keeps of its events: its tool calls and the
steers it took (`agent.conversations.turns`)."""
