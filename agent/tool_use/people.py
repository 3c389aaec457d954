"""A run's waits for a person, kept as wait records: a call's approval, the agent's question.

A call that needs a person opens its wait (`records.waits`) the first time it is made,
announces it (`approval_requested`, `input_requested`; the task turns INPUT_REQUIRED)
and parks the run (`agent.parked.Parked`). ApproveToolCall or ProvideInput, on any
replica, leaves the answer in the wait and wakes the task; the woken run makes the
same call again, finds the answer, announces it (`approval_decided`, `input_provided`)
and takes it in. A wait whose deadline passed is taken in as what it is, a timeout
(`WaitAction`), never as a person's decision: announced once (`deadline_passed`), the
call refused, or run when its approval rule approves at its deadline, or the task failed.

A call's approval rule (`records.tools.approval_rules`, from the policy's decision)
names who decides and by when: its wait is opened for the rule's roles, with the rule's
deadline (capped by what the task may still wait), its action, its reminder and its step
to other roles. Every wait for a person opened here is told of (`agent.notices`: OPENED).
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Literal

from agent.failures import WaitExpiredError
from agent.notices import tell_step
from agent.parked import Parked, Waiting
from agent.running import lifecycle
from core.errors import ApprovalNotPendingError
from core.roles import Action
from records import events as ev
from records.inbox.steps import DEADLINE_ACTOR, ActionStep, ActionStepKind
from records.tasks import TaskStatus
from records.tools.approval_rules import ApprovalRule
from records.tools.approvals import ApprovalDecision
from records.tools.invocation import Invocation
from records.waits import Escalation, Wait, WaitAction, WaitKind, WaitState, remind_at
from tools.permissions import Decision

if TYPE_CHECKING:
    from agent.running.run import TaskRun

DECISIONS: dict[str, Literal["approve", "reject", "edit"]] = {
    "approved": "approve",
    "rejected": "reject",
    "edited": "edit",
}


def decision_of(wait: Wait) -> ApprovalDecision:
    """The decision an answered approval wait holds (its `answered_by` decided)."""
    answer = wait.answer or {}
    arguments = answer.get("arguments")
    return ApprovalDecision(
        approved=bool(answer.get("approved")),
        decided_by=wait.answered_by,
        comment=str(answer.get("comment", "")),
        arguments=arguments if isinstance(arguments, dict) else None,
    )


def answer_of(decision: ApprovalDecision) -> dict[str, object]:
    """A decision as a wait's answer (who decided is the wait's `answered_by`)."""
    return {
        "approved": decision.approved,
        "comment": decision.comment,
        "arguments": dict(decision.arguments) if decision.arguments is not None else None,
    }


class PersonWaits:
    """The waits of one run for a person: opened once, looked at on every pass."""

    __slots__ = ("_run",)

    def __init__(self, run: TaskRun) -> None:
        self._run = run

    def _deadline(self, kind: WaitKind, now: float) -> tuple[datetime, WaitAction]:
        run = self._run
        left = run.wait_left()
        at = datetime.fromtimestamp(now + left, UTC)
        return at, run.config.waits.action(kind)

    async def open(
        self,
        kind: WaitKind,
        slot: str,
        *,
        tool_name: str = "",
        detail: str = "",
        deadline_at: datetime | None = None,
        rule: ApprovalRule | None = None,
    ) -> tuple[Wait, bool]:
        """The run's wait in `slot`: opened now (True) or found (False). An approval's
        `rule` gives its roles, deadline, action, reminder and escalation."""
        run = self._run
        store = run.state.waits
        assert store is not None
        found = await store.get(run.task.task_id, slot)
        if found is not None:
            return found, False
        clock = time.time()
        now = datetime.fromtimestamp(clock, UTC)
        latest, action = self._deadline(kind, clock)
        at = latest if deadline_at is None else min(latest, deadline_at)
        task = run.task
        approves = kind in (WaitKind.APPROVAL, WaitKind.BUDGET)
        roles = run.config.roles.roles(Action.APPROVE_TOOL_CALLS) if approves else ()
        wait = Wait(
            tenant=task.tenant,
            task_id=task.task_id,
            slot=slot,
            kind=kind,
            created_at=now,
            root_task_id=task.root,
            agent=task.agent.reference if task.agent is not None else "",
            owner=task.owner,
            roles=roles,
            tool_name=tool_name,
            detail=detail[:2_000],
            deadline_at=at,
            on_deadline=action,
        )
        if rule is not None and kind is WaitKind.APPROVAL:
            wait = ruled(wait, rule, now, latest)
        stored, new = await store.open(wait)
        if new and kind.for_person:
            await tell_step(run.state.notices, ActionStep(ActionStepKind.OPENED, stored, now))
        return stored, new

    async def settle(self, kind: WaitKind, slot: str, answer: dict[str, object]) -> None:
        """The run's wait in `slot` is over by what the run itself saw (its turn came, its
        child or remote task ended): answered, if nobody did, and taken in."""
        store = self._run.state.waits
        if store is None:
            return
        wait = await store.get(self._run.task.task_id, slot)
        if wait is None:
            return
        if wait.state is WaitState.OPEN:
            now, by = datetime.now(UTC), self._run.task.task_id
            with contextlib.suppress(ApprovalNotPendingError):  # answered meanwhile
                await store.answer(wait.tenant, wait.task_id, slot, kind, answer, by, now)
            wait = await store.get(wait.task_id, slot) or wait
        await self.taken(wait)

    async def taken(self, wait: Wait) -> None:
        """The run took `wait`'s answer (or expiry) in."""
        if wait.state is not WaitState.CLOSED and self._run.state.waits is not None:
            await self._run.state.waits.close(wait.task_id, wait.slot)

    async def asked(self, call_id: str) -> bool:
        """Whether the call `call_id` has a wait for a person's decision."""
        store = self._run.state.waits
        if store is None:
            return False
        found = await store.get(self._run.task.task_id, call_id)
        return found is not None and found.kind is WaitKind.APPROVAL

    async def approval(
        self, invocation: Invocation, tool: str, decision: Decision
    ) -> tuple[ApprovalDecision, Invocation | None] | None:
        """A person's decision on `invocation` (a call the policy's `decision` says needs
        approval, under its approval rule), with the call as they edited it, if they did;
        None: its deadline passed and the call is denied (a decision `timed_out` when its
        rule approved it then). Parked while none was left."""
        call_id = invocation.call_id
        waiting = f"waiting for approval of {tool}"
        shown = invocation.redacted
        detail = json.dumps(shown, default=str)
        wait, new = await self.open(
            WaitKind.APPROVAL, call_id, tool_name=tool, detail=detail, rule=decision.approval
        )
        if new:
            asked = ev.ApprovalRequested(
                call_id, tool, shown, decision.reason, wait.roles, wait.deadline_at
            )
            await self.announce(waiting, asked)
        if wait.state is WaitState.OPEN:
            raise Parked([Waiting(WaitKind.APPROVAL, call_id, True, detail=waiting)])
        if wait.timed_out:
            what = f"no decision on {tool} came before its deadline"
            if not await self.timed_out(wait, what):
                return None
            return ApprovalDecision(True, DEADLINE_ACTOR, timed_out=True), None
        decided = decision_of(wait)
        edits = decided.arguments
        edited = None if edits is None else invocation.edited(edits)
        if wait.state is WaitState.ANSWERED:  # announced once, by the pass that takes it in
            label, by = DECISIONS[decided.label], decided.decided_by
            shown_edits = None if edited is None else edited.redacted
            await self._run.transcript.emit(
                ev.ApprovalDecided(call_id, label, by, decided.comment, shown_edits)
            )
            await self.taken(wait)
        await self.no_longer_waiting(f"{decided.label} by {decided.decided_by}")
        return decided, edited

    async def question(self, request_id: str, question: str) -> tuple[str, str] | None:
        """The answer to the agent's question and who gave it (None: its deadline passed);
        Parked while none was given."""
        waiting = "waiting for an answer to the agent's question"
        wait, new = await self.open(WaitKind.QUESTION, request_id, detail=question)
        if new:
            await self.announce(waiting, ev.InputRequested(request_id, question))
        if wait.state is WaitState.OPEN:
            raise Parked([Waiting(WaitKind.QUESTION, request_id, True, detail=waiting)])
        if wait.timed_out:
            await self.timed_out(wait, "the question was not answered before its deadline")
            return None
        assert wait.answer is not None
        text, by = str(wait.answer.get("text", "")), wait.answered_by
        if wait.state is WaitState.ANSWERED:
            await self._run.transcript.emit(ev.InputProvided(request_id, by, text))
            await self.taken(wait)
        await self.no_longer_waiting(f"answered by {by}")
        return text, by

    async def timed_out(self, wait: Wait, what: str) -> bool:
        """Take in `wait`, whose deadline passed (`what`): announced (once), then
        WaitExpiredError when its action fails the task, else taken in; whether its
        deadline approved (an approval rule's APPROVE) rather than denied."""
        await self.passed(wait)
        outcome = wait.deadline_outcome
        if outcome not in ("denied", "approved"):
            raise WaitExpiredError(what)
        await self.taken(wait)
        await self.no_longer_waiting(f"{what} ({outcome})")
        return outcome == "approved"

    async def passed(self, wait: Wait) -> None:
        """`deadline_passed` for a wait whose deadline ended it, once: by the pass that
        takes its expiry in (a wait taken in already was announced)."""
        if wait.state is WaitState.EXPIRED:
            payload = ev.DeadlinePassed(
                wait.slot, wait.kind.value, wait.tool_name, wait.deadline_outcome
            )
            await self._run.transcript.emit(payload)

    async def announce(self, waiting: str, announcement: ev.EventPayload) -> None:
        """INPUT_REQUIRED (`waiting`), then the request's event."""
        if self._run.task.status is not TaskStatus.INPUT_REQUIRED:
            await lifecycle.set_waiting(self._run, waiting)
        await self._run.transcript.emit(announcement)

    async def no_longer_waiting(self, detail: str) -> None:
        """RUNNING again (`detail`) if the task waited for a person."""
        if self._run.task.status is TaskStatus.INPUT_REQUIRED:
            await lifecycle.set_running(self._run, detail)


def ruled(wait: Wait, rule: ApprovalRule, now: datetime, latest: datetime) -> Wait:
    """`wait` (an approval opened at `now`) under its approval `rule`: the rule's roles (else
    the role table's it has), its deadline (none later than `latest`, when the task's wait
    limit runs out), action, reminder and step to other roles."""
    roles, by_rule = (rule.approver_roles, True) if rule.approver_roles else (wait.roles, False)
    deadline = wait.deadline_at or latest
    if rule.deadline_seconds is not None:
        deadline = min(deadline, now + timedelta(seconds=rule.deadline_seconds))
    escalation = None
    if rule.escalates and rule.escalation_deadline_seconds is not None:
        escalation = Escalation(
            roles=rule.escalate_to_roles,
            deadline_seconds=rule.escalation_deadline_seconds,
            on_deadline=rule.on_escalation_deadline,
            remind_before_seconds=rule.remind_before_seconds,
            latest=latest,
        )
    return replace(
        wait,
        roles=roles,
        roles_by_rule=by_rule,
        deadline_at=deadline,
        on_deadline=rule.on_deadline,
        remind_at=remind_at(now, deadline, rule.remind_before_seconds),
        escalation=escalation,
    )
