"""Events: small frozen types joined in one union, each in a per-task log envelope."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from agent.plan import Plan
from agent.tasks import StopReason, TaskStatus, TokenUsage
from tools.outcomes import ToolCallError


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
class ApprovalRequested:
    call_id: str
    tool_name: str
    arguments: dict[str, Any]
    reason: str
    type: Literal["approval_requested"] = "approval_requested"


@dataclass(frozen=True, slots=True)
class InputRequested:
    """The agent asked the caller a question; the task waits for `ProvideInput`."""

    request_id: str
    question: str
    type: Literal["input_requested"] = "input_requested"


@dataclass(frozen=True, slots=True)
class InputProvided:
    request_id: str
    provided_by: str
    text: str
    type: Literal["input_provided"] = "input_provided"


@dataclass(frozen=True, slots=True)
class ApprovalDecided:
    call_id: str
    decision: Literal["approve", "reject", "edit"]
    decided_by: str
    comment: str
    arguments: dict[str, Any] | None = None
    type: Literal["approval_decided"] = "approval_decided"


@dataclass(frozen=True, slots=True)
class UsageReported:
    step_id: str
    role: str
    call: TokenUsage
    task_total: TokenUsage
    model: str = ""
    """The model that answered."""
    estimated: bool = False
    """The endpoint reported no usage: `call` is an estimate (`agent.llm.tokens`)."""
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
class FinalAnswer:
    text: str
    stop_reason: StopReason
    stop_detail: str = ""
    partial: bool = False
    """A limit cut the work short (`stop_reason` names it)."""
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


@dataclass(frozen=True, slots=True)
class SubtaskStarted:
    """A child task was started (a delegation, or a panel member)."""

    child_task_id: str
    agent: str
    task: str
    call_id: str
    panel: str = ""
    type: Literal["subtask_started"] = "subtask_started"


@dataclass(frozen=True, slots=True)
class SubtaskFinished:
    """A child task ended; its usage is now in the parent's."""

    child_task_id: str
    agent: str
    status: TaskStatus
    answer: str
    error: str
    usage: TokenUsage
    stop_reason: StopReason | None = None
    type: Literal["subtask_finished"] = "subtask_finished"


@dataclass(frozen=True, slots=True)
class SubtaskWaiting:
    """A child task waits for a person; answer on the child's id."""

    child_task_id: str
    kind: Literal["approval", "input"]
    request_id: str
    detail: str
    type: Literal["subtask_waiting"] = "subtask_waiting"


@dataclass(frozen=True, slots=True)
class PanelVote:
    panel: str
    agent: str
    child_task_id: str
    answer: str
    ok: bool
    group: int
    type: Literal["panel_vote"] = "panel_vote"


@dataclass(frozen=True, slots=True)
class PanelDecided:
    panel: str
    answer: str
    ratio: float
    threshold: float
    reached: bool
    members: int
    grouping: str
    type: Literal["panel_decided"] = "panel_decided"


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
    | ReflectionVerdict
    | ApprovalRequested
    | ApprovalDecided
    | InputRequested
    | InputProvided
    | UsageReported
    | HistoryCompacted
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
