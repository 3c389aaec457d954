"""Deadlines per rule, in one process: a call under an approval rule waits for the rule's
roles until the rule's deadline (capped by what its task may still wait), announced with
both; the waking pass reminds once, escalates once (announced in the parked task's log),
and ends what is due as a timeout — denied, approved, failed or cancelled — told to the
notices at every step, never as a person's decision; the woken run announces the timeout
(`deadline_passed`, never `approval_decided`) and the call's audit record says so. Only
holders of a rule's current roles decide on its calls."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.failures import WaitExpiredError
from agent.llm.testing import FunctionModel
from agent.parked import Parked
from agent.running.run import TaskRun
from agent.scheduling.answers import Answers
from agent.scheduling.parking import Parking
from agent.scheduling.waking import WakingPass
from agent.tool_use.people import PersonWaits
from core.errors import RoleRequiredError
from core.identity import CallContext, Principal
from core.roles import DEFAULT_ROLES
from records import events as ev
from records.inbox.steps import DEADLINE_ACTOR, ActionStep, ActionStepKind
from records.tools.approval_rules import ApprovalRule
from records.tools.approvals import ApprovalDecision
from records.tools.model import PermissionLevel
from records.tools.outcomes import ToolErrorKind
from records.waits import Escalation, Wait, WaitAction, WaitKind, WaitState
from stores.checkpoints.memory import InMemoryCheckpointStore
from stores.leases.memory import InMemoryLeases
from stores.tasks.base import logged
from stores.wakes.memory import InMemoryWakeBus
from tests.unit.agent.runs import PRINCIPAL, Env, KeptNotices, make_env, of_type
from tools.permissions import GrantPolicy

NEVER = FunctionModel(lambda *_: (_ for _ in ()).throw(AssertionError("never asked")))
ESCALATING = ApprovalRule(
    approver_roles=("finance",),
    deadline_seconds=300.0,
    on_deadline=WaitAction.ESCALATE,
    escalate_to_roles=("ops",),
    escalation_deadline_seconds=600.0,
    on_escalation_deadline=WaitAction.DENY,
    remind_before_seconds=60.0,
)


class Woken(Parking):
    """Parking that only notes whom it wakes."""

    def __init__(self, env: Env) -> None:
        super().__init__(InMemoryLeases(), env.waits, InMemoryCheckpointStore(), InMemoryWakeBus())
        self.waked: list[str] = []

    async def wake(self, tenant: str, task_id: str) -> None:
        self.waked.append(task_id)


class Passes:
    """A waking pass over an environment's waits, and what it cancelled."""

    def __init__(self, env: Env) -> None:
        self.parking = Woken(env)
        self.cancelled: list[tuple[str, str]] = []
        self.waking = WakingPass(self.parking, env.store, self._cancel, 1.0, None, env.notices)

    async def _cancel(self, tenant: str, task_id: str, why: str) -> None:
        self.cancelled.append((task_id, why))

    async def once(self, now: datetime) -> None:
        await self.waking.once(now)


async def waiting(
    env: Env, rule: ApprovalRule | None = None, wait_limit: float | None = None
) -> tuple[TaskRun, Wait]:
    """A run whose calculator call waits for approval (under `rule`; its task may wait
    `wait_limit` seconds in all, if given), and its wait."""
    env.registry._policy = GrantPolicy(
        default=PermissionLevel.WRITE, approval_tools=["calculator"], approval_rule=rule
    )
    run = await env.run(NEVER)
    run.task.wait_limit_seconds = wait_limit
    with pytest.raises(Parked) as parked:
        await run.tools.call("iteration-1", "calculator", {"expression": "6*7"}, key="i1/0")
    wait = await env.waits.get(run.task.task_id, parked.value.waits[0].slot)
    assert wait is not None
    return run, wait


async def log(env: Env, run: TaskRun) -> list[ev.EventPayload]:
    """Everything in the task's log now (the pass appends to it while the task is parked)."""
    task = await env.store.get(run.task.tenant, run.task.task_id)
    events = await logged(env.store, task.tenant, task.task_id, 0, task.last_sequence)
    return [event.payload for event in events]


async def test_a_call_under_a_rule_waits_for_its_roles_until_its_deadline(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    before = datetime.now(UTC)
    run, wait = await waiting(env, ESCALATING)
    after = datetime.now(UTC)

    assert (wait.roles, wait.roles_by_rule, wait.on_deadline) == (
        ("finance",),
        True,
        WaitAction.ESCALATE,
    )
    assert wait.deadline_at is not None
    assert before + timedelta(seconds=300) <= wait.deadline_at <= after + timedelta(seconds=300)
    assert wait.remind_at == wait.deadline_at - timedelta(seconds=60)
    step = wait.escalation
    assert step is not None
    assert step.latest is not None  # the task's wait limit: a day
    assert before + timedelta(days=1) <= step.latest <= after + timedelta(days=1)
    assert step == Escalation(("ops",), 600.0, WaitAction.DENY, 60.0, step.latest)
    (asked,) = of_type(await env.events(run), ev.ApprovalRequested)
    assert (asked.approver_roles, asked.deadline) == (("finance",), wait.deadline_at)
    (opened,) = env.notices.steps
    assert (opened.kind, opened.wait, opened.actor) == (ActionStepKind.OPENED, wait, "")


async def test_a_rule_s_deadline_never_passes_what_the_task_may_still_wait(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    _, wait = await waiting(env, ESCALATING, wait_limit=30.0)
    assert wait.deadline_at is not None
    assert wait.escalation is not None
    assert wait.deadline_at == wait.escalation.latest
    assert wait.deadline_at - wait.created_at <= timedelta(seconds=30)
    assert wait.remind_at is None  # a minute before its deadline is before it began


async def test_without_a_rule_the_role_table_and_the_wait_limit_decide(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run, wait = await waiting(env)
    assert (wait.roles, wait.roles_by_rule) == (("approver", "admin"), False)
    assert (wait.on_deadline, wait.remind_at, wait.escalation) == (WaitAction.DENY, None, None)
    (asked,) = of_type(await env.events(run), ev.ApprovalRequested)
    assert (asked.approver_roles, asked.deadline) == (("approver", "admin"), wait.deadline_at)


async def test_the_pass_reminds_once_escalates_once_then_denies_as_a_timeout(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    run, wait = await waiting(env, ESCALATING)
    passes = Passes(env)
    assert wait.deadline_at is not None
    assert wait.remind_at is not None

    await passes.once(wait.remind_at - timedelta(seconds=1))
    assert [s.kind for s in env.notices.steps] == [ActionStepKind.OPENED]
    for _ in range(2):  # reminded once, however many passes
        await passes.once(wait.remind_at)
    reminded = env.notices.steps[1]
    assert (reminded.kind, reminded.actor, reminded.wait.remind_at) == (
        ActionStepKind.REMINDED,
        DEADLINE_ACTOR,
        None,
    )
    assert len(env.notices.steps) == 2

    moment = wait.deadline_at
    for _ in range(2):  # escalated once
        await passes.once(moment)
    moved = await env.waits.get(wait.task_id, wait.slot)
    assert moved is not None
    new_deadline = moment + timedelta(seconds=600)
    assert (moved.roles, moved.deadline_at, moved.on_deadline) == (
        ("ops",),
        new_deadline,
        WaitAction.DENY,
    )
    assert (moved.state, moved.escalation_level, moved.escalation) == (WaitState.OPEN, 1, None)
    assert moved.remind_at == new_deadline - timedelta(seconds=60)
    escalated = env.notices.steps[2]
    assert (escalated.kind, escalated.actor, escalated.outcome) == (
        ActionStepKind.ESCALATED,
        DEADLINE_ACTOR,
        "escalated",
    )
    assert escalated.wait == moved
    (passed,) = of_type(await log(env, run), ev.DeadlinePassed)
    assert passed == ev.DeadlinePassed(
        wait.slot, "approval", "calculator", "escalated", ("ops",), new_deadline
    )
    assert passes.parking.waked == []  # still waiting: for other people

    await passes.once(new_deadline)  # the escalation's reminder, and its deadline
    steps = [(s.kind, s.outcome) for s in env.notices.steps[3:]]
    assert steps == [(ActionStepKind.REMINDED, ""), (ActionStepKind.TIMED_OUT, "denied")]
    assert passes.parking.waked == [wait.task_id]
    expired = await env.waits.get(wait.task_id, wait.slot)
    assert expired is not None
    assert (expired.state, expired.answer) == (WaitState.EXPIRED, None)

    woken = await env.woken(run, NEVER)
    result = await woken.tools.call("iteration-1", "calculator", None, key="i1/0")
    assert result.error is not None
    assert result.error.kind is ToolErrorKind.TIMEOUT
    assert result.text == "not called: no decision on calculator came before its deadline"
    events = await env.events(woken)
    assert not of_type(events, ev.ApprovalDecided)
    outcomes = [(p.outcome, p.kind) for p in of_type(events, ev.DeadlinePassed)]
    assert outcomes == [("escalated", "approval"), ("denied", "approval")]
    (record,) = env.audit.records
    assert (record.outcome, record.approval, record.approved_by) == (
        "timeout",
        "timed out: denied",
        "deadline",
    )
    assert record.rule == "default:write:deadline"


async def test_a_rule_that_approves_at_its_deadline_runs_the_call_as_a_timeout(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    rule = ApprovalRule(deadline_seconds=5.0, on_deadline=WaitAction.APPROVE)
    run, wait = await waiting(env, rule)
    assert (wait.roles, wait.roles_by_rule) == (("approver", "admin"), False)
    passes = Passes(env)
    assert wait.deadline_at is not None
    await passes.once(wait.deadline_at)
    (_, timed_out) = env.notices.steps
    assert (timed_out.kind, timed_out.outcome) == (ActionStepKind.TIMED_OUT, "approved")
    expired = await env.waits.get(wait.task_id, wait.slot)
    assert expired is not None
    assert expired.answer == {"approved": True, "timed_out": True}

    woken = await env.woken(run, NEVER)
    result = await woken.tools.call("iteration-1", "calculator", None, key="i1/0")
    assert (result.error, result.text) == (None, "42")
    events = await env.events(woken)
    assert not of_type(events, ev.ApprovalDecided)  # nobody decided
    (passed,) = of_type(events, ev.DeadlinePassed)
    assert (passed.outcome, passed.request_id) == ("approved", wait.slot)
    (record,) = env.audit.records
    assert (record.outcome, record.approval, record.approved_by) == (
        "ok",
        "timed out: approved",
        "deadline",
    )
    closed = await env.waits.get(wait.task_id, wait.slot)
    assert closed is not None
    assert closed.state is WaitState.CLOSED
    again = await env.woken(run, NEVER)  # woken from the same place again: announced once
    await again.tools.call("iteration-1", "calculator", None, key="i1/0")
    assert len(of_type(await env.events(again), ev.DeadlinePassed)) == 1


async def test_a_rule_that_fails_ends_the_task_named_and_announced(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run, wait = await waiting(env, ApprovalRule(deadline_seconds=5, on_deadline=WaitAction.FAIL))
    assert wait.deadline_at is not None
    await Passes(env).once(wait.deadline_at)
    assert env.notices.steps[-1].outcome == "failed"
    woken = await env.woken(run, NEVER)
    with pytest.raises(WaitExpiredError, match="no decision on calculator"):
        await woken.tools.call("iteration-1", "calculator", None, key="i1/0")
    (passed,) = of_type(await env.events(woken), ev.DeadlinePassed)
    assert passed.outcome == "failed"


async def test_a_rule_that_cancels_is_announced_by_the_pass(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    rule = ApprovalRule(deadline_seconds=5, on_deadline=WaitAction.CANCEL)
    run, wait = await waiting(env, rule)
    assert wait.deadline_at is not None
    passes = Passes(env)
    await passes.once(wait.deadline_at)
    assert passes.parking.waked == []
    assert [task_id for task_id, _ in passes.cancelled] == [run.task.task_id]
    (passed,) = of_type(await log(env, run), ev.DeadlinePassed)
    assert (passed.outcome, passed.kind) == ("cancelled", "approval")
    assert env.notices.steps[-1].outcome == "cancelled"


async def test_a_question_s_deadline_is_announced_and_told_too(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run = await env.run(NEVER)
    with pytest.raises(Parked) as parked:
        await PersonWaits(run).question("question:call_1", "Which account?")
    slot = parked.value.waits[0].slot
    wait = await env.waits.get(run.task.task_id, slot)
    assert wait is not None
    assert wait.deadline_at is not None
    await Passes(env).once(wait.deadline_at)
    assert [(s.kind, s.outcome) for s in env.notices.steps] == [
        (ActionStepKind.OPENED, ""),
        (ActionStepKind.TIMED_OUT, "denied"),
    ]
    woken = await env.woken(run, NEVER)
    assert await PersonWaits(woken).question(slot, "Which account?") is None
    (passed,) = of_type(await env.events(woken), ev.DeadlinePassed)
    assert (passed.kind, passed.request_id, passed.outcome) == ("question", slot, "denied")


def _caller(*roles: str) -> CallContext:
    return CallContext(Principal(f"p-{'-'.join(roles) or 'none'}", PRINCIPAL.tenant, roles))


async def test_only_holders_of_a_rule_s_current_roles_decide(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run, wait = await waiting(env, ESCALATING)
    passes = Passes(env)
    answers = Answers(env.store, env.waits, passes.parking, DEFAULT_ROLES, env.notices)
    approve = ApprovalDecision(True, "")

    with pytest.raises(RoleRequiredError, match="needs one of the roles: finance"):
        await answers.approve(_caller("approver"), run.task.task_id, wait.slot, approve)
    assert wait.deadline_at is not None
    await passes.once(wait.deadline_at)  # escalated to ops
    with pytest.raises(RoleRequiredError, match="needs one of the roles: ops"):
        await answers.approve(_caller("finance"), run.task.task_id, wait.slot, approve)
    decided = ApprovalDecision(True, "p-ops", comment="fine")
    await answers.approve(_caller("ops"), run.task.task_id, wait.slot, decided)
    answered = env.notices.steps[-1]
    assert (answered.kind, answered.actor, answered.outcome) == (
        ActionStepKind.ANSWERED,
        "p-ops",
        "approved",
    )
    assert answered.wait.state is WaitState.ANSWERED
    assert passes.parking.waked == [run.task.task_id]


async def test_the_role_table_decides_a_wait_without_a_rule_s_roles(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    run, wait = await waiting(env)
    passes = Passes(env)
    answers = Answers(env.store, env.waits, passes.parking, DEFAULT_ROLES, env.notices)
    with pytest.raises(RoleRequiredError, match="needs one of the roles: approver, admin"):
        await answers.approve(
            _caller("ops"), run.task.task_id, wait.slot, ApprovalDecision(True, "")
        )
    rejected = ApprovalDecision(False, "p-approver")
    await answers.approve(_caller("approver"), run.task.task_id, wait.slot, rejected)
    assert (env.notices.steps[-1].kind, env.notices.steps[-1].outcome) == (
        ActionStepKind.ANSWERED,
        "rejected",
    )


def test_what_a_deadline_does_by_kind_and_action() -> None:
    def outcome(kind: WaitKind, action: WaitAction) -> str:
        return Wait("acme", "t", "s", kind, datetime.now(UTC), on_deadline=action).deadline_outcome

    assert outcome(WaitKind.APPROVAL, WaitAction.DENY) == "denied"
    assert outcome(WaitKind.APPROVAL, WaitAction.APPROVE) == "approved"
    assert outcome(WaitKind.APPROVAL, WaitAction.ESCALATE) == "denied"  # with no step left
    assert outcome(WaitKind.APPROVAL, WaitAction.FAIL) == "failed"
    assert outcome(WaitKind.QUESTION, WaitAction.CANCEL) == "cancelled"
    assert outcome(WaitKind.QUESTION, WaitAction.APPROVE) == "denied"  # never a consent
    assert outcome(WaitKind.RESUME, WaitAction.DENY) == "failed"
    assert outcome(WaitKind.BUDGET, WaitAction.DENY) == "denied"


class Failing(KeptNotices):
    """Notices that cannot be written."""

    async def action(self, step: ActionStep) -> None:
        raise ConnectionError("the history is down")


async def test_a_step_nobody_could_be_told_of_still_wakes_the_task(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    env.notices = Failing()
    run, wait = await waiting(env, ApprovalRule(deadline_seconds=5.0))
    passes = Passes(env)
    assert wait.deadline_at is not None
    await passes.once(wait.deadline_at)
    assert passes.parking.waked == [run.task.task_id]
    expired = await env.waits.get(wait.task_id, wait.slot)
    assert expired is not None
    assert expired.state is WaitState.EXPIRED
