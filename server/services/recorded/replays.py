"""ReplayTask's service: a recorded task's input rerun, as another agent version, as a
new task whose tool calls are answered from the recording (`agent.tool_use.replaying`).

Who may: the caller reads the recorded task (its tenant's; its owner, or a holder of a
role that reads the audit log: auditors and admins by default) and starts a task as the
target agent, through the same path as StartTask (admission, the agent's checks, grants,
budgets, idempotency). NOT_FOUND (`TRACE_NOT_FOUND`) when no trace of the task is kept.
"""

from __future__ import annotations

from dataclasses import replace

from agent.engine import Engine
from core.errors import TraceNotFoundError
from core.identity import CallContext
from core.roles import Action, RoleTable
from records.requests import TaskRequest
from records.tasks import Task
from records.traces.model import TraceOwner
from records.traces.replays import REPLAY_OF_LABEL, ReplayInfo, ReplayRequest


class ReplayService:
    def __init__(self, engine: Engine, roles: RoleTable | None = None) -> None:
        self._engine = engine
        self._roles = roles or engine.config.roles
        """Who may replay another principal's task (the engine's table: the settings')."""

    async def replay(self, request: ReplayRequest, call: CallContext) -> Task:
        """The replaying task, started (or, for a retry with the same idempotency key,
        the one the first try started)."""
        recorded, owner = await self._recorded(request.task_id, call)
        agent = request.agent or (recorded.agent.agent_id if recorded.agent else "")
        labels = {**request.labels, REPLAY_OF_LABEL: recorded.task_id}
        info = ReplayInfo(recorded.task_id, request.tools, recorded_answer=recorded.final_answer)
        started = TaskRequest(
            goal=owner.task,
            context=recorded.context,
            idempotency_key=request.idempotency_key,
            labels=labels,
            agent=agent,
            replay=info,
        )
        if not agent:  # the default agent: as the recording ran (an agent's version decides)
            started = replace(
                started,
                tools=recorded.tools,
                max_iterations=recorded.max_iterations,
                mode=recorded.mode,
            )
        return await self._engine.start(started, call)

    async def _recorded(self, task_id: str, call: CallContext) -> tuple[Task, TraceOwner]:
        """The recorded task and its trace's owner, if the caller may read them;
        TaskNotFoundError (another tenant's too), RoleRequiredError, TraceNotFoundError."""
        caller = call.principal
        task = await self._engine.find(caller.tenant, task_id)
        if caller.id != task.owner:
            self._roles.require(caller.roles, Action.READ_AUDIT_LOG, "another principal's task")
        traces = self._engine.traces
        head = await traces.store.head(task_id) if traces is not None else None
        if head is None or head.owner.tenant != caller.tenant:
            raise TraceNotFoundError(task_id)
        return task, head.owner
