"""People's answers to what parked tasks wait for: ApproveToolCall, ProvideInput and
ResumeTask. Each is written to its wait first (`stores.waits`: exactly one answer per
wait, whichever replica receives it), told of (`agent.notices`: ANSWERED, with who and
how), then the task is woken (`agent.scheduling.parking`).

Who may decide on an approval: a holder of an approver role (the role table), unless its
wait's roles are an approval rule's (`Wait.roles_by_rule`: the rule's, or those it was
escalated to); then a holder of one of those roles, and only while they are its roles."""

from __future__ import annotations

from datetime import UTC, datetime

import structlog

from agent.notices import NoNotices, Notices, tell_step
from agent.scheduling.parking import Parking
from agent.tool_use import questions
from agent.tool_use import resume as tool_resume
from agent.tool_use.budget_approval import PREFIX as BUDGET_SLOT
from agent.tool_use.people import answer_of
from core.errors import ApprovalNotPendingError
from core.identity import CallContext
from core.roles import Action, RoleTable, require_one_of
from records.inbox.steps import ActionStep, ActionStepKind
from records.tasks import Task
from records.tools.approvals import ApprovalDecision
from records.waits import Wait, WaitKind
from stores.tasks.base import TaskStore
from stores.waits.base import WaitStore

log = structlog.get_logger(__name__)


class Answers:
    """Leaves people's answers in the waits of parked tasks, and wakes the tasks."""

    def __init__(
        self,
        store: TaskStore,
        waits: WaitStore,
        parking: Parking,
        roles: RoleTable,
        notices: Notices | None = None,
    ) -> None:
        self._notices: Notices = notices or NoNotices()
        """Told of each answer (`agent.notices`)."""
        self._store = store
        self._waits = waits
        self._parking = parking
        self._roles = roles

    async def approve(
        self, call: CallContext, task_id: str, call_id: str, decision: ApprovalDecision
    ) -> Task:
        """A person's decision on a call waiting for approval (or on a task waiting to go
        past a budget's soft limit: `call_id` `budget:<id>`); returns the task's state when
        it was recorded (it then runs on whichever replica takes it)."""
        tenant = call.principal.tenant
        task = await self._store.get(tenant, task_id)
        wait = await self._waits.get(task_id, call_id)
        level = self._may_decide(call, wait, call_id)
        if task.status.terminal or call_id.startswith(questions.PREFIX):
            raise ApprovalNotPendingError(task_id, call_id)
        now = datetime.now(UTC)
        answer, by = answer_of(decision), decision.decided_by
        kind = WaitKind.BUDGET if call_id.startswith(BUDGET_SLOT) else WaitKind.APPROVAL
        answered = await self._waits.answer(
            tenant, task_id, call_id, kind, answer, by, now, escalation_level=level
        )
        log.info(
            "tool call decided",
            task_id=task_id,
            call_id=call_id,
            decision=decision.label,
            decided_by=decision.decided_by,
            trace_id=call.trace_id,
        )
        await self._answered(answered, decision.label)
        await self._parking.wake(tenant, task_id)
        return await self._store.get(tenant, task_id)

    def _may_decide(self, call: CallContext, wait: Wait | None, call_id: str) -> int | None:
        """RoleRequiredError unless the caller may decide on `wait`; the escalation level
        its answer must find the wait at when its roles are a rule's (else None)."""
        held = call.principal.roles
        if wait is None or wait.tenant != call.principal.tenant or not wait.roles_by_rule:
            self._roles.require(held, Action.APPROVE_TOOL_CALLS)
            return None
        require_one_of(held, wait.roles, f"deciding on call {call_id}")
        return wait.escalation_level

    async def _answered(self, wait: Wait, outcome: str) -> None:
        """Tell the notices of `wait`'s answer (ANSWERED, when it was left, by whom)."""
        at = wait.answered_at or datetime.now(UTC)
        step = ActionStep(ActionStepKind.ANSWERED, wait, at, wait.answered_by, outcome)
        await tell_step(self._notices, step)

    async def provide_input(
        self, call: CallContext, task_id: str, request_id: str, text: str
    ) -> Task:
        """The caller's answer to a question the task's agent asked
        (`agent.tool_use.questions`)."""
        tenant = call.principal.tenant
        task = await self._store.get(tenant, task_id)
        waits, roles = self._waits, self._roles
        answered = await questions.provide(waits, task, call.principal, request_id, text, roles)
        await self._answered(answered, "answered")
        await self._parking.wake(tenant, task_id)
        return await self._store.get(tenant, task_id)

    async def resume(self, call: CallContext, task: Task, comment: str = "") -> Task:
        """ResumeTask: the tool calls the task waits on after a resumable failure run again
        (`agent.tool_use.resume`); TaskNotResumableError when none waits."""
        waits, roles = self._waits, self._roles
        answered = await tool_resume.resume(waits, task, call.principal, comment, roles)
        await self._answered(answered, "resumed")
        await self._parking.wake(task.tenant, task.task_id)
        return await self._store.get(task.tenant, task.task_id)
