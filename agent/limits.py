"""The engine's knobs and limits, and the signal a limit raises when it stops a task."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal

from agent.llm.window.catalog import BUILT_IN_CATALOG, ModelCatalog
from agent.llm.window.fitting import FitPolicy
from core.roles import DEFAULT_ROLES, RoleTable
from records.execution import StepPolicy
from records.guardrails import CheckSpec
from records.tasks import StopReason
from records.waits import WaitAction, WaitKind

DEFAULT_MAX_ITERATIONS = 10
MAX_ITERATIONS_LIMIT = 50
MAX_TASK_CHARS = 5_000
MAX_CONTEXT_BYTES = 10 * 1024
CRITIC_WEIGHTS = {"accuracy": 0.4, "completeness": 0.3, "relevance": 0.2, "logic": 0.1}
DEFAULT_WAIT_ACTIONS: Mapping[WaitKind, WaitAction] = {
    WaitKind.APPROVAL: WaitAction.DENY,
    WaitKind.QUESTION: WaitAction.DENY,
    WaitKind.RESUME: WaitAction.FAIL,
    WaitKind.CHILD: WaitAction.FAIL,
    WaitKind.REMOTE: WaitAction.FAIL,
    WaitKind.TURN: WaitAction.FAIL,
    WaitKind.BUDGET: WaitAction.DENY,
}
"""A call nobody decided on in time is denied (the model is told, the task goes on); a
task whose children, remote agent, turn or resume did not come in time fails; a task
nobody let past a budget's soft limit in time stops (STOP_REASON_BUDGET_EXHAUSTED)."""


@dataclass(frozen=True, slots=True)
class ToolLimits:
    """How a task's tool calls are bounded: at once, per model reply, repeated, failing."""

    max_concurrent_tool_calls: int = 5
    """Tool calls that run at once within one task, and (separately) ready plan steps."""
    max_tool_calls_per_turn: int = 32
    """Tool calls run from one model reply; more are not run (the model is told so)."""
    max_repeated_calls: int = 3
    """The same tool with the same arguments this many times in a row stops the loop."""
    max_failed_tool_calls: int = 3
    """Tool calls that fail one after another (refused, invalid arguments, tool errors,
    timeouts) before the run stops (TOOL_FAILURES) with the best answer so far; 0: never."""
    tool_progress_seconds: float = 0.5
    """At most one `tool_progress` event per tool call in this time (the latest wins)."""
    resume_window_seconds: float = 900.0
    """How long a task whose tool call failed resumably waits for ResumeTask before it
    ends FAILED (TOOL_RESUMABLE); the wait does not count against its time limit."""
    replay_read_only_tools: tuple[str, ...] = ()
    """Tools besides the built-ins of permission READ or lower that a READ_ONLY replay may
    run live (`agent.tool_use.replaying`)."""


@dataclass(frozen=True, slots=True)
class PlanPolicy:
    """How plan-and-execute reviews its steps and what a failed step leads to."""

    critic_policy: Literal["every_step", "every_n", "end", "off"] = "end"
    """When the critic reviews plan-and-execute results."""
    critic_every_n: int = 3
    """Completed steps between reviews under `every_n`."""
    pass_threshold: float = 0.7
    """Weighted critic confidence needed to pass."""
    max_corrections: int = 3
    """Corrections the critic may ask for in one task."""
    step_policy: StepPolicy = "replan"
    """What a failed plan step leads to (plan-and-execute)."""


@dataclass(frozen=True, slots=True)
class WaitPolicy:
    """How long a task may wait parked, and what a wait past its deadline leads to."""

    max_wait_seconds: float = 86_400.0
    """How long a task may wait parked in all (for people, children, remote agents, its
    turn), unless the request sets less (`wait_timeout`); waiting does not count against
    its time limit."""
    wait_actions: Mapping[WaitKind, WaitAction] = field(
        default_factory=lambda: dict(DEFAULT_WAIT_ACTIONS)
    )
    """What happens when a wait of each kind passes its deadline."""

    def action(self, kind: WaitKind) -> WaitAction:
        """What happens when a wait of `kind` passes its deadline."""
        return self.wait_actions.get(kind, DEFAULT_WAIT_ACTIONS[kind])


@dataclass(frozen=True, slots=True)
class Capacity:
    """How many tasks a process runs and queues, and a tenant's share of the queue."""

    max_running_tasks: int = 100
    """Tasks this process runs at once; more wait, PENDING, in a queue."""
    max_queued_tasks: int = 100
    """Tasks that may wait for a slot; beyond that, new tasks are refused."""
    tenant_queue_share: float = 0.5
    """Share of the queue places one tenant may hold while every slot is busy."""


@dataclass(frozen=True, slots=True)
class GuardrailPolicy:
    """The server's guardrails (`agent.guardrails`): the checks every task gets (before its
    agent's own), and how streamed output is held back for them."""

    checks: tuple[CheckSpec, ...] = ()
    window_chars: int = 256
    """Streamed output is checked, and released, a window of this many characters at a
    time."""
    tail_chars: int = 128
    """Characters of each window held back for the next, so that what straddles two
    windows is checked whole before any of it is released."""
    fail_closed: bool = True
    """What a check that cannot decide (its service down) does unless it says: block."""


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """How the engine runs tasks; every limit here is enforced and reported."""

    url_placeholder_min_chars: int = 60
    """URLs this long or longer reach the model as short placeholders; 0: never."""
    step_timeout_seconds: float = 30.0
    """Time limit of one step (an iteration, or a plan step)."""
    task_timeout_seconds: float = 600.0
    """Time limit of a whole task (the caller's deadline, if shorter, wins)."""
    token_budget: int = 200_000
    """Tokens a task may spend unless the request sets its own budget."""
    tool_calling: bool = True
    """Whether the model supports native tool calls (auto mode uses text ReAct if not)."""
    roles: RoleTable = DEFAULT_ROLES
    """Who may approve or reject tool calls waiting for a human, and answer or resume
    another principal's task (`core.roles`)."""
    delta_flush_seconds: float = 0.025
    """Text (or reasoning) deltas arriving within this time go out as one event."""
    delta_max_chars: int = 1024
    """A coalesced delta goes out once it holds this many characters."""
    catalog: ModelCatalog = BUILT_IN_CATALOG
    """Each model's context window and reply limit."""
    fitting: FitPolicy = field(default_factory=FitPolicy)
    """How each model request is fitted into its window."""
    tools: ToolLimits = field(default_factory=ToolLimits)
    """How a task's tool calls are bounded."""
    plan: PlanPolicy = field(default_factory=PlanPolicy)
    """How plan-and-execute reviews and recovers."""
    waits: WaitPolicy = field(default_factory=WaitPolicy)
    """How long a task may wait parked, and what a wait past its deadline leads to."""
    capacity: Capacity = field(default_factory=Capacity)
    """Tasks run and queued at once."""
    guardrails: GuardrailPolicy = field(default_factory=GuardrailPolicy)
    """Checks on what goes into tasks and comes out of them."""


class LimitReached(Exception):  # noqa: N818 - a stop signal, named for what happened
    """A limit stopped the task; the runner writes the best answer it can."""

    def __init__(self, reason: StopReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


_STEP_TIMER: ContextVar[asyncio.Timeout | None] = ContextVar("agentd_step_timer", default=None)
_TASK_TIMER: ContextVar[asyncio.Timeout | None] = ContextVar("agentd_task_timer", default=None)


@asynccontextmanager
async def task_timeout(seconds: float) -> AsyncIterator[asyncio.Timeout]:
    """`asyncio.timeout` for a whole task, which `task_clock_stopped` can pause."""
    async with asyncio.timeout(seconds) as timer:
        token = _TASK_TIMER.set(timer)
        try:
            yield timer
        finally:
            _TASK_TIMER.reset(token)


@asynccontextmanager
async def task_clock_stopped() -> AsyncIterator[None]:
    """Stop the task's clock (and its step's) while it waits for a person to fix what a
    tool needs (ResumeTask): that wait has a window of its own."""
    async with _stopped(_TASK_TIMER.get()), step_clock_stopped():
        yield


@asynccontextmanager
async def step_timeout(seconds: float) -> AsyncIterator[asyncio.Timeout]:
    """`asyncio.timeout` for one step, which `step_clock_stopped` can pause."""
    async with asyncio.timeout(seconds) as timer:
        token = _STEP_TIMER.set(timer)
        try:
            yield timer
        finally:
            _STEP_TIMER.reset(token)


@asynccontextmanager
async def step_clock_stopped() -> AsyncIterator[None]:
    """Stop the current step's clock while waiting for a person (an approval): the time
    spent waiting does not count against the step; the task's deadline still does."""
    async with _stopped(_STEP_TIMER.get()):
        yield


@asynccontextmanager
async def _stopped(timer: asyncio.Timeout | None) -> AsyncIterator[None]:
    """`timer` paused for the block, then given the time it had left."""
    when = timer.when() if timer is not None else None
    if timer is None or when is None:
        yield
        return
    loop = asyncio.get_running_loop()
    left = max(0.0, when - loop.time())
    try:
        timer.reschedule(None)
    except RuntimeError:  # a timer whose block has ended (a limit's partial answer): none to stop
        yield
        return
    try:
        yield
    finally:
        if not timer.expired():
            timer.reschedule(loop.time() + left)
