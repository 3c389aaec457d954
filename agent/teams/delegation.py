"""Delegation: a task's call of `agent.<id>` runs a child task and waits for its end.

The child is started through the engine's ordinary path (`Engine.start`): the parent's
tenant, principal and trace; the child agent's tools narrowed by what that principal may
use; a share of the parent's remaining token budget and time, reserved before it starts.
Its idempotency key is the parent's task id and the call's key (stable across a
takeover), so a parent resumed elsewhere re-attaches to its children and a finished child
is never run again. The parent waits parked (a wait of kind CHILD: its running place is
free while the child works, `agent.teams.children`), woken by the child's end on any
replica: a child waiting for a person puts the parent in INPUT_REQUIRED
(`subtask_waiting`); its end (`subtask_finished`) adds its usage to the parent's. Every
refusal (depth, children per task, a cycle, an unknown agent, no budget left) and every
failure of the child is the call's observation, never the parent's end.
Cancelling the parent cancels the children it waits for (a hand-over does not).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import structlog

from agent.limits import MAX_TASK_CHARS
from agent.llm.base import Model
from agent.parked import Parked, Waiting
from agent.running.seams import TeamOutcome as Outcome
from agent.teams import carry_over as memory
from agent.teams import children
from agent.teams.base import ChildTasks
from agent.teams.panels import PANEL_PREFIX, ask_panel, panel_spec
from core.errors import AgentdError
from records import events as ev
from records.agents.definition import Panel
from records.requests import TaskRequest
from records.tasks import ChildSummary, Delegate, ParentLink, Task, TaskStatus, TokenUsage
from records.tools.model import PermissionLevel, RiskLevel, ToolSpec
from records.tools.outcomes import ToolCallError, ToolErrorKind
from records.waits import WaitKind
from tools.catalog import ENGINE

if TYPE_CHECKING:
    from agent.running.run import TaskRun

log = structlog.get_logger(__name__)

DELEGATE_PREFIX = "agent."
CATEGORY = "agents"
TIME_SHARE = 0.9
"""A child may use this share of its parent's remaining time (the rest is the parent's,
to read the results and answer)."""


@dataclass(frozen=True, slots=True)
class TeamLimits:
    """How far delegation may go; each limit is a setting, reported when it refuses."""

    max_depth: int = 3
    """AGENTD_MAX_DELEGATION_DEPTH: the deepest a child may sit (a top task is 0)."""
    max_children: int = 8
    """AGENTD_MAX_CHILDREN_PER_TASK: child tasks one task may start in all."""
    max_parallel: int = 4
    """AGENTD_MAX_PARALLEL_DELEGATIONS: children of one task running at once."""


def delegate_spec(agent_id: str, description: str) -> ToolSpec:
    """The tool a delegate is offered as."""
    return ToolSpec(
        name=DELEGATE_PREFIX + agent_id,
        description=f"Hand a sub-task to {agent_id}: {description}"[:2_000],
        parameters={
            "type": "object",
            "properties": {
                "task": {
                    "type": "string",
                    "description": "the sub-task, complete in itself (the agent sees "
                    "nothing else of this conversation)",
                }
            },
            "required": ["task"],
        },
        category=CATEGORY,
        source=ENGINE,  # admitted by the registry like any tool, run by the engine
        permission=PermissionLevel.NONE,
        risk=RiskLevel.LOW,
        idempotent=False,  # checkpointed before it starts: a takeover re-attaches
        timeout_seconds=86_400.0,
    )


def team_tools(delegates: Sequence[Delegate], panels: Sequence[Panel] = ()) -> dict[str, ToolSpec]:
    """The team tools a task is offered: one per delegate it has, one per panel."""
    specs = [delegate_spec(d.agent_id, d.description) for d in delegates]
    specs += [panel_spec(p, CATEGORY) for p in panels]
    return {spec.name: spec for spec in specs}


def check_delegation(
    task: Task, limits: TeamLimits, agent_id: str, call_key: str, starting: int
) -> str:
    """Why a new child of `agent_id` may not start under `task` (empty when it may);
    `starting`: children of it being started now."""
    if any(c.call_key == call_key for c in task.children):
        return ""  # started before a takeover: re-attached, not a new child
    own = task.agent.agent_id if task.agent is not None else ""
    if agent_id == own or agent_id in task.lineage:
        path = " -> ".join((*task.lineage, own, agent_id))
        return f"not delegated: {path} would be a delegation cycle"
    if task.depth + 1 > limits.max_depth:
        return (
            f"not delegated: a child here would be {task.depth + 1} levels deep; the "
            f"limit is {limits.max_depth} (AGENTD_MAX_DELEGATION_DEPTH)"
        )
    if len(task.children) + starting >= limits.max_children:
        return (
            f"not delegated: this task has started {limits.max_children} child tasks, "
            "its limit (AGENTD_MAX_CHILDREN_PER_TASK)"
        )
    return ""


def refused(text: str) -> Outcome:
    error = ToolCallError(ToolErrorKind.FAILED, text)
    return None, error, text


class Team:
    """The process's delegation: the engine to start children with, and the limits."""

    def __init__(
        self,
        children: ChildTasks,
        limits: TeamLimits,
        models: Callable[[str], Model] | None = None,
    ) -> None:
        self.children = children
        self.limits = limits
        self.models = models
        """A model by name (a panel's judge); None: judges use exact matching."""

    def for_run(self, run: TaskRun) -> TeamCalls:
        return TeamCalls(self, run)


class TeamCalls:
    """One run's delegations: bounded in number and in parallel, with budget shares."""

    def __init__(self, team: Team, run: TaskRun) -> None:
        self._team = team
        self._run = run
        self._starting = 0
        self._batch = 1
        self._share = 0
        self._spend: int | None = None

    @staticmethod
    def handles(spec: ToolSpec | None) -> bool:
        return spec is not None and spec.category == CATEGORY

    def expect(self, count: int) -> None:
        """`count` team calls are about to start together: each gets an equal share of
        the budget and of the spend limit left (one more share stays the parent's)."""
        self._batch = max(1, count)
        self._share = self._left() // (self._batch + 1)
        self._spend = self._spend_left() // (self._batch + 1)

    def _spend_share(self) -> int:
        """A new child's share of the task's spend limit, as of its token budget."""
        return self._spend if self._spend is not None else self._spend_left() // 2

    def _spend_left(self) -> int:
        """The spend limit not spent nor reserved for children that have not ended (0 when
        the task has no spend limit)."""
        task = self._run.task
        reserved = sum(c.spend for c in task.children if not c.status.terminal)
        return max(0, task.spend_limit - task.usage.cost_micros - reserved)

    def _left(self) -> int:
        """The budget not spent nor reserved for children that have not ended."""
        run = self._run
        reserved = sum(c.budget for c in run.task.children if not c.status.terminal)
        return max(0, run.bounds.token_budget - run.task.usage.total_tokens - reserved)

    async def call(self, call_id: str, key: str, name: str, arguments: dict[str, Any]) -> Outcome:
        """Run the delegation (or panel) `name` asks for; every outcome is an observation
        (Parked while its children work)."""
        if name.startswith(PANEL_PREFIX):
            agent = self._run.task.agent
            panels = {p.name: p for p in (agent.panels if agent is not None else ())}
            panel = panels.get(name.removeprefix(PANEL_PREFIX))
            if panel is None:
                return refused(f"not asked: no panel {name!r} here")
            question = arguments.get("question")
            question = question if isinstance(question, str) else ""
            models = self._team.models
            judge = models(panel.judge_model) if models and panel.judge_model else None
            return await ask_panel(self, self.run_child, panel, call_id, key, question, judge)
        agent_id = name.removeprefix(DELEGATE_PREFIX)
        goal = arguments.get("task")  # the tool's argument, as the model is offered it
        if not isinstance(goal, str) or not goal.strip() or len(goal) > MAX_TASK_CHARS:
            return refused(f"not delegated: `task` must be 1 to {MAX_TASK_CHARS} characters")
        return await self.delegate(call_id, key or call_id, agent_id, goal.strip())

    async def delegate(self, call_id: str, call_key: str, agent_id: str, goal: str) -> Outcome:
        child = await self.run_child(call_id, call_key, agent_id, goal)
        return refused(child) if isinstance(child, str) else outcome_of(child)

    async def emit(self, payload: ev.EventPayload) -> None:
        await self._run.transcript.emit(payload)

    async def spent(self, usage: TokenUsage, model: str) -> None:
        """Tokens a team call spent on a model itself (a panel's judge)."""
        task = self._run.task
        task.usage = task.usage + usage
        await self._run.transcript.emit(
            ev.UsageReported("panel", "judge", usage, task.usage, model)
        )

    async def run_child(
        self, call_id: str, call_key: str, agent_id: str, goal: str, panel: str = ""
    ) -> Task | str:
        """A child task of `agent_id` with `goal` at its end (started now, or re-attached
        to); Parked while it works; why not, as the text the model sees, when it could
        not start."""
        run = self._run
        key = f"{run.task.task_id}/{call_key}"
        problem = check_delegation(run.task, self._team.limits, agent_id, key, self._starting)
        if problem:
            return problem
        known = next((c for c in run.task.children if c.call_key == key), None)
        if known is None and (self._share or self._left() // 2) <= 0:
            return (
                f"not delegated: no token budget is left for a child (this task's budget is "
                f"{run.bounds.token_budget} tokens)"
            )
        if known is None and run.task.spend_limit and self._spend_share() <= 0:
            return (
                f"not delegated: nothing is left of this task's spend limit "
                f"({run.task.spend_limit} micro-units) for a child"
            )
        if known is not None:
            child = await self._team.children.find(run.task.tenant, known.task_id)
        else:
            self._starting += 1  # counted at once: a burst cannot pass the limits
            try:
                await self._room()
                child = await self._start(call_id, key, agent_id, goal, panel)
            except AgentdError as refusal:
                return f"not delegated ({refusal.reason}): {refusal.message}"
            finally:
                self._starting -= 1
        ended = await children.wait(run, self._team.children, child, call_key)
        await self._finished(ended)
        return ended

    async def _room(self) -> None:
        """Return when a new child (counted in `_starting`) may start now: within the
        parallel limit of this task's children at work. Parked otherwise, until one of
        them ends."""
        run = self._run
        working = await children.working(run)
        if len(working) + self._starting <= self._team.limits.max_parallel:
            return
        detail = "waiting for one of its children to end before it starts another"
        raise Parked(
            Waiting(WaitKind.CHILD, w.slot, False, w.changes, detail=detail) for w in working
        )

    async def _start(self, call_id: str, key: str, agent_id: str, goal: str, panel: str) -> Task:
        """Start a new child (its share of the budget reserved in its summary, its wait
        opened before it can end)."""
        run = self._run
        parent = run.task
        share = max(1, self._share or self._left() // 2)
        spend = max(1, self._spend_share()) if parent.spend_limit else 0
        own = parent.agent.remote_delegates if parent.agent is not None else ()
        remote = next((r for r in own if r.agent_id == agent_id), None)
        carried: tuple[dict[str, Any], ...] = ()
        if not panel and remote is None:  # a panel's members answer afresh
            carried = await memory.carried(self._team.children, parent, agent_id)
        link = ParentLink(
            task_id=parent.task_id,
            root_task_id=parent.root,
            depth=parent.depth + 1,
            lineage=(*parent.lineage, *([parent.agent.agent_id] if parent.agent else [])),
            carried=carried,
            remote=remote,
        )
        left = None if run.bounds.deadline_at is None else run.bounds.deadline_at - time.time()
        request = TaskRequest(
            goal=goal,
            context=dict(parent.context),
            agent=agent_id,
            token_budget=share,
            spend_limit=spend,
            timeout_seconds=max(1.0, left * TIME_SHARE) if left is not None else 0.0,
            idempotency_key=key,
            parent=link,
        )
        child = await self._team.children.start(request, run.call)
        await children.open_wait(run, child, f"{DELEGATE_PREFIX}{agent_id}", goal)
        summary = ChildSummary(
            child.task_id, _reference(child), key, panel=panel, budget=share, spend=spend
        )
        parent.children = (*parent.children, summary)
        await run.transcript.save()
        await run.transcript.emit(
            ev.SubtaskStarted(child.task_id, summary.agent, goal, call_id, panel)
        )
        return child

    async def _finished(self, child: Task) -> None:
        """The child's end into the parent: its status and usage (once)."""
        run, parent = self._run, self._run.task
        found = next((c for c in parent.children if c.task_id == child.task_id), None)
        if found is None or found.status.terminal:
            return  # already counted (before a takeover)
        ended = replace(found, status=child.status, usage=child.usage)
        parent.children = tuple(ended if c is found else c for c in parent.children)
        parent.usage = parent.usage + child.usage
        await run.transcript.save()
        error = child.failure.message if child.failure else child.stop_detail * child.partial
        answer = child.final_answer
        await run.transcript.emit(
            ev.SubtaskFinished(
                child.task_id,
                found.agent,
                child.status,
                answer,
                error,
                child.usage,
                child.stop_reason,
            )
        )


def outcome_of(child: Task) -> Outcome:
    """What the parent's model sees of a child's end."""
    data = {"task_id": child.task_id, "status": child.status.value, "answer": child.final_answer}
    if child.status is TaskStatus.COMPLETED:
        text = child.final_answer
        if child.partial:
            text = f"{text}\n\n(partial: {child.stop_detail})"
        return data, None, text
    why = child.failure.message if child.failure else child.stop_detail or child.status.value
    reason = child.stop_reason.value if child.stop_reason else child.status.value
    text = f"the sub-agent's task {child.status.value} ({reason}): {why}"
    if child.final_answer:
        text += f"\nWhat it had: {child.final_answer}"
    error = ToolCallError(ToolErrorKind.FAILED, text)
    return data, error, text


def _reference(task: Task) -> str:
    return task.agent.reference if task.agent is not None else ""
