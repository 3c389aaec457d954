"""Tasks as the engine and the stores know them."""

from __future__ import annotations

import copy
import enum
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from core.errors import TaskAlreadyTerminalError
from records.agents.remote_keys import RemoteDelegate
from records.execution import ExecutionMode
from records.paging import TimeCursor
from records.parts import InputPart
from records.plan import Plan
from records.traces.replays import ReplayInfo

if TYPE_CHECKING:
    from records.agents.definition import AgentDefinition


class TaskStatus(enum.Enum):
    """Life-cycle state of a task."""

    PENDING = "pending"
    RUNNING = "running"
    INPUT_REQUIRED = "input_required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def terminal(self) -> bool:
        return self in (TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED)


class StopReason(enum.Enum):
    """Why the engine stopped working on a task."""

    FINAL_ANSWER = "final_answer"
    MAX_ITERATIONS = "max_iterations"
    PLAN_TOO_LARGE = "plan_too_large"
    STEP_TIMEOUT = "step_timeout"
    DEADLINE = "deadline"
    TOKEN_BUDGET = "token_budget"
    REPEATED_TOOL_CALL = "repeated_tool_call"
    CANCELLED = "cancelled"
    ERROR = "error"
    TOOL_FAILURES = "tool_failures"
    """Too many tool calls in a row failed (`EngineConfig.max_failed_tool_calls`)."""
    STEP_FAILED = "step_failed"
    """A plan step failed and the agent's step policy is `terminate`."""
    GUARDRAIL = "guardrail"
    """A guardrail blocked the task's input, the model's output, or a tool call's
    arguments or result (`agent.guardrails`)."""
    BUDGET_EXHAUSTED = "budget_exhausted"
    """A budget of its tenant, user or agent had no room for its next model call, or a
    person denied going past a soft limit (`agent.spending`)."""
    SPEND_LIMIT = "spend_limit"
    """The task's own spend limit (`Task.spend_limit`) was reached: its next model call
    was refused, or the call that took it past the limit was its last."""


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Tokens spent on model calls."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    saved_tokens: int = 0
    """Tokens of earlier conversation turns not sent because of the memory budget (not
    part of the total)."""
    cached_prompt_tokens: int = 0
    """Of the prompt tokens, those the provider read from its cache (when it says)."""
    cost_micros: int = 0
    """What the tokens cost, in micro-units of the server's currency (`records.usage.prices`);
    0 for a model without a price."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def costing(self, cost_micros: int) -> TokenUsage:
        """This usage at another cost (`dataclasses.replace`, without its cost per call)."""
        return TokenUsage(
            self.prompt_tokens,
            self.completion_tokens,
            self.reasoning_tokens,
            self.saved_tokens,
            self.cached_prompt_tokens,
            cost_micros,
        )

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
            self.saved_tokens + other.saved_tokens,
            self.cached_prompt_tokens + other.cached_prompt_tokens,
            self.cost_micros + other.cost_micros,
        )


@dataclass(frozen=True, slots=True)
class TaskFailure:
    """Why a task failed."""

    reason: str
    """An ErrorReason name, e.g. LLM_UNAVAILABLE."""
    message: str
    """A human-readable explanation."""


@dataclass(frozen=True, slots=True)
class ChildSummary:
    """One child task of a task (a delegation, or a panel member), as its parent keeps it."""

    task_id: str
    agent: str
    """The agent it runs as, `id@version`."""
    call_key: str
    """The parent's tool call that started it (its idempotency key's tail)."""
    status: TaskStatus = TaskStatus.PENDING
    """As last seen by the parent; terminal once its usage is in the parent's."""
    usage: TokenUsage = field(default_factory=TokenUsage)
    panel: str = ""
    """The panel it votes in (`panel.<name>`); empty for a delegation."""
    budget: int = 0
    """The tokens of its parent's budget reserved for it (its budget), until it ends."""
    spend: int = 0
    """What of its parent's spend limit is reserved for it (its spend limit), until it
    ends; 0 when the parent has none."""


@dataclass(frozen=True, slots=True)
class Delegate:
    """An agent a task may hand work to, as its model is offered it (`agent.<id>`)."""

    agent_id: str
    description: str


@dataclass(frozen=True, slots=True)
class ParentLink:
    """Where a child task sits in its tree, given when its parent starts it."""

    task_id: str
    root_task_id: str
    depth: int
    """The child's depth (its parent's + 1)."""
    lineage: tuple[str, ...] = ()
    """Agent ids of the child's ancestors, top first."""
    carried: tuple[dict[str, Any], ...] = ()
    """Messages of its agent's earlier delegations under the same parent."""
    remote: RemoteDelegate | None = None
    """The remote A2A agent the child runs on (its parent's `remote_delegates`)."""


@dataclass(frozen=True, slots=True)
class Citation:
    """A knowledge base passage a task retrieved (`search_knowledge`): where it comes from
    and how near the question it was."""

    knowledge_base_id: str
    document_id: str
    chunk_index: int
    score: float
    """Cosine similarity of the chunk to the question searched."""
    snippet: str = ""
    """The start of the chunk's text."""


def new_task_id() -> str:
    return "task_" + secrets.token_hex(12)


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class Task:
    """A task and everything known about it. Owned by one tenant."""

    task_id: str
    """Server-assigned, opaque."""
    tenant: str
    """The tenant the task belongs to; other tenants never see it."""
    owner: str
    """The principal that started it."""
    goal: str
    """What the caller asked for, in its words (`task` in the API and in the stored
    rows of an earlier version, read as this by `records.serialization`)."""
    mode: ExecutionMode = ExecutionMode.AUTO
    """How the engine runs it."""
    context: dict[str, Any] = field(default_factory=dict)
    """The caller's context data."""
    tools: tuple[str, ...] = ()
    """The tools the task may use (already narrowed to what the caller may use)."""
    max_iterations: int = 10
    """The iteration limit."""
    trace_id: str = ""
    """The trace the task runs in."""
    labels: dict[str, str] = field(default_factory=dict)
    """The caller's labels."""
    time_limit_seconds: float | None = None
    """The caller's time limit for the task (the server's limit caps it); None: the server's."""
    wait_limit_seconds: float | None = None
    """The caller's limit on how long the task may wait parked in all (the server's caps
    it); None: the server's."""
    spend_limit: int = 0
    """Most the task may spend on model calls in all, its children's included, in
    micro-units of the server's currency (`TokenUsage.cost_micros`); 0: no limit of its own."""
    partial: bool = False
    """COMPLETED with a partial answer: a limit cut the work short (see stop_reason)."""
    plan: Plan | None = None
    """The current plan (plan-and-execute mode)."""
    agent: AgentDefinition | None = None
    """The agent the task runs as (its definition when accepted); None: the default agent."""
    bypass_tool_cache: bool = False
    """The caller asked that its tool calls never answer from the cache of tool results."""
    conversation_id: str = ""
    """The conversation the task is a turn of; empty for a task on its own."""
    replay: ReplayInfo | None = None
    """For a replay (ReplayTask): the recorded task it replays and, once it ended, its
    report (`records.traces.replays`); None for any other task."""
    parent_task_id: str = ""
    """The task that started this one as its child (`agent.teams`); empty for a top task."""
    root_task_id: str = ""
    """The top task of its tree; empty means the task itself."""
    depth: int = 0
    """0 for a top task; a child's is its parent's + 1."""
    lineage: tuple[str, ...] = ()
    """The agent ids of its ancestors, top first (a delegation back to one is refused)."""
    delegates: tuple[Delegate, ...] = ()
    """The agents it may delegate to, resolved when it was accepted."""
    children: tuple[ChildSummary, ...] = ()
    """Its child tasks so far, in the order started."""
    carried: tuple[dict[str, Any], ...] = ()
    """Messages (role, content, ...) of its agent's earlier delegations under the same
    parent, sent before its own task (per-agent memory in a task tree)."""
    input_parts: tuple[InputPart, ...] = ()
    """The files and images given with its input, in order, by reference (each kept as
    an artifact of the task, version 1; `data` empty): its first user message shows them."""
    status: TaskStatus = TaskStatus.PENDING
    """Current state."""
    final_answer: str = ""
    citations: tuple[Citation, ...] = ()
    """The passages its `search_knowledge` calls retrieved (best score first)."""
    """The answer, once there is one."""
    failure: TaskFailure | None = None
    """Set when the task failed."""
    stop_reason: StopReason | None = None
    """Why the engine stopped, once it has."""
    stop_detail: str = ""
    """Detail for the stop reason."""
    usage: TokenUsage = field(default_factory=TokenUsage)
    """Tokens spent so far."""
    current_step: int = 0
    """Steps completed."""
    total_steps: int = 0
    """Steps in total, when known."""
    last_sequence: int = 0
    """Sequence number of the latest event."""
    created_at: datetime = field(default_factory=utcnow)
    """When the task was accepted."""
    updated_at: datetime = field(default_factory=utcnow)
    """When it last changed."""

    def move_to(self, status: TaskStatus, detail: str = "") -> None:
        """Change status; a cancel records its stop reason. TaskAlreadyTerminalError once ended."""
        if self.status.terminal:
            raise TaskAlreadyTerminalError(self.task_id, self.status.value)
        self.status = status
        if status is TaskStatus.CANCELLED:
            self.stop_reason = StopReason.CANCELLED
            self.stop_detail = detail
        self.updated_at = utcnow()

    def snapshot(self) -> Task:
        """An independent copy. Every field is immutable but `context` (copied deeply) and
        `labels` (copied)."""
        twin = copy.copy(self)
        twin.context = copy.deepcopy(self.context)
        twin.labels = dict(self.labels)
        return twin

    @property
    def root(self) -> str:
        """The id of the top task of its tree."""
        return self.root_task_id or self.task_id


@dataclass(frozen=True, slots=True)
class TaskQuery:
    """Which tasks to list."""

    tenant: str
    owner: str
    statuses: frozenset[TaskStatus] = frozenset()
    """Empty means every status."""
    created_after: datetime | None = None
    """Inclusive."""
    created_before: datetime | None = None
    """Exclusive."""
    limit: int = 50
    """The page's size."""
    after: TimeCursor | None = None
    """Where the page starts: after the last task of the previous page."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """Only tasks carrying every one of these labels."""
    agent: str = ""
    """Only tasks run as the agent of this id (any version); empty: any agent, the default
    one included."""
    agent_version: int | None = None
    """With `agent`: only tasks run as this version of it."""
    conversation_id: str = ""
    """Only the tasks of this conversation; empty: tasks of any conversation or none."""
    parent_task_id: str = ""
    """Only the children of this task; empty: any task."""
