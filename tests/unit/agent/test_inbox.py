"""The inbox (`agent.scheduling.inbox`): a caller is shown exactly the waits for a person it
may answer — approvals and budget approvals to an approver the wait names, questions and
resumes to the task's owner or to whoever the role table lets answer or resume another's
task — of its own tenant only; and each one shown, it can answer through the answers'
own checks (the approver check, `questions.provide`, `resume.resume`). The inbox's history
(`InboxHistory`), told of each step of a wait among the engine's notices, keeps an entry
per step (a step told again once) and nothing of status changes."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from agent.notices import AllNotices, NoNotices
from agent.scheduling.inbox import APPROVALS, Inbox, InboxHistory
from agent.tool_use import questions
from agent.tool_use import resume as tool_resume
from core.errors import AgentdError
from core.identity import Principal
from core.roles import DEFAULT_ROLES, Action, RoleTable
from records.inbox.history import HistoryQuery
from records.inbox.steps import DEADLINE_ACTOR, ActionStep, ActionStepKind
from records.tasks import Task, TaskStatus
from records.waits import PendingQuery, Wait, WaitKind
from stores.action_history.memory import InMemoryActionHistory
from stores.waits.memory import InMemoryWaitStore

NOW = datetime(2026, 12, 8, 9, 0, tzinfo=UTC)
TABLE = DEFAULT_ROLES.with_roles(
    {
        Action.APPROVE_TOOL_CALLS: ("finance", "ops"),
        Action.ANSWER_ANOTHERS_TASK: ("support",),
        Action.RESUME_ANOTHERS_TASK: ("ops",),
    }
)
FINANCE = Principal("fay", "acme", ("finance",))
OPS = Principal("otto", "acme", ("ops",))
SUPPORT = Principal("sam", "acme", ("support",))
ALICE = Principal("alice", "acme")
BOB = Principal("bob", "acme")
OUTSIDER = Principal("gus", "globex", ("finance", "ops", "support"))
STALE = Principal("sid", "acme", ("retired",))
"""Named on an old wait's roles, but no longer an approver in the role table."""


def wait(n: int, kind: WaitKind, owner: str, roles: tuple[str, ...] = (), **more: Any) -> Wait:
    slots = {WaitKind.QUESTION: "question:c1", WaitKind.RESUME: "resume:0"}
    fields: dict[str, Any] = {
        "tenant": "acme",
        "task_id": f"t{n}",
        "slot": slots.get(kind, "budget:b1" if kind is WaitKind.BUDGET else "c1"),
        "kind": kind,
        "created_at": NOW + timedelta(seconds=n),
        "root_task_id": f"t{n}",
        "owner": owner,
        "roles": roles,
        **more,
    }
    return Wait(**fields)


WAITS = [
    wait(1, WaitKind.APPROVAL, "alice", ("finance", "ops")),
    wait(2, WaitKind.APPROVAL, "alice", ("finance", "retired")),
    wait(3, WaitKind.BUDGET, "bob", ("ops",)),
    wait(4, WaitKind.QUESTION, "alice"),
    wait(5, WaitKind.QUESTION, "bob"),
    wait(6, WaitKind.RESUME, "alice"),
    wait(7, WaitKind.CHILD, "alice"),
    wait(8, WaitKind.TURN, "bob"),
    wait(9, WaitKind.APPROVAL, "gus", ("finance", "ops"), tenant="globex"),
]
SEEN = {
    FINANCE: ["t1", "t2"],
    OPS: ["t1", "t3", "t6"],  # and resumes anyone's task
    SUPPORT: ["t4", "t5"],  # answers anyone's questions
    ALICE: ["t4", "t6"],  # her own question and resume
    BOB: ["t5"],
    OUTSIDER: ["t9"],  # its own tenant's only
    STALE: [],
}


@pytest.fixture
async def inbox() -> Inbox:
    store = InMemoryWaitStore()
    for opened in WAITS:
        await store.open(opened)
    return Inbox(store, TABLE)


async def listed(inbox: Inbox, caller: Principal, **fields: Any) -> list[str]:
    kinds = fields.pop("kinds", None)
    query = PendingQuery(tenant="globex", **fields)  # the caller's tenant counts, not this
    page = await (inbox.pending(caller, query, kinds) if kinds else inbox.pending(caller, query))
    return [w.task_id for w in page.items]


@pytest.mark.parametrize("caller", list(SEEN), ids=lambda p: p.id)
async def test_each_caller_sees_exactly_what_it_may_answer(inbox: Inbox, caller: Principal) -> None:
    assert await listed(inbox, caller) == SEEN[caller]


@pytest.mark.parametrize("caller", list(SEEN), ids=lambda p: p.id)
async def test_what_is_listed_is_what_the_answers_accept(caller: Principal) -> None:
    """Every wait of acme, answered as `caller` through the checks the RPCs make: each one
    it is shown is accepted; and, of the waits opened as they are today (an approval
    naming the table's approver roles), each one not shown is refused. (An approval that
    names other roles than the table's, from before a change of settings, is shown only
    to a holder of one of both; ApproveToolCall asks the table's alone.)"""
    for opened in WAITS[:6]:
        store = InMemoryWaitStore()
        await store.open(opened)
        shown = opened.task_id in await listed(Inbox(store, TABLE), caller)
        accepted = await answered(store, TABLE, caller, opened)
        as_today = opened.kind not in APPROVALS or opened.roles == TABLE.roles(
            Action.APPROVE_TOOL_CALLS
        )
        assert accepted if shown else not (as_today and accepted), (caller.id, opened.task_id)


async def answered(store: InMemoryWaitStore, table: RoleTable, caller: Principal, w: Wait) -> bool:
    task = Task(w.task_id, caller.tenant, w.owner, "goal", status=TaskStatus.INPUT_REQUIRED)
    try:
        if w.kind is WaitKind.QUESTION:
            await questions.provide(store, task, caller, w.slot, "yes", table)
        elif w.kind is WaitKind.RESUME:
            await tool_resume.resume(store, task, caller, "", table)
        else:  # ApproveToolCall's check (`Answers.approve`), then its write
            table.require(caller.roles, Action.APPROVE_TOOL_CALLS)
            await store.answer(caller.tenant, w.task_id, w.slot, w.kind, {}, caller.id, NOW)
    except AgentdError:
        return False
    return True


async def test_filters_by_kind_agent_and_tree(inbox: Inbox) -> None:
    store = InMemoryWaitStore()
    for opened in WAITS:
        await store.open(replace(opened, agent="helper@2" if opened.owner == "bob" else ""))
    await store.open(wait(10, WaitKind.QUESTION, "bob", root_task_id="t5", agent="lead@1"))
    filtered = Inbox(store, TABLE)
    both = Principal("root", "acme", ("ops", "support"))
    assert await listed(filtered, both) == ["t1", "t3", "t4", "t5", "t6", "t10"]
    assert await listed(filtered, both, kinds=frozenset({WaitKind.QUESTION})) == ["t4", "t5", "t10"]
    assert await listed(filtered, both, kinds=frozenset({WaitKind.CHILD})) == []
    assert await listed(filtered, both, agent="helper") == ["t3", "t5"]
    assert await listed(filtered, both, agent="lead", agent_version=1) == ["t10"]
    assert await listed(filtered, both, root_task_id="t5") == ["t5", "t10"]
    assert await listed(filtered, both, limit=2) == ["t1", "t3"]


async def test_the_history_keeps_each_step_once_and_no_status() -> None:
    store = InMemoryActionHistory()
    notices = AllNotices([NoNotices(), InboxHistory(store)])
    asked = wait(1, WaitKind.APPROVAL, "alice", ("finance",), detail='{"amount": 9}')
    later = NOW + timedelta(minutes=5)
    steps = [
        ActionStep(ActionStepKind.OPENED, asked, NOW),
        ActionStep(ActionStepKind.TIMED_OUT, asked, later, DEADLINE_ACTOR, "denied"),
        ActionStep(ActionStepKind.TIMED_OUT, asked, later + timedelta(seconds=1)),  # again
    ]
    for step in steps:
        await notices.action(step)
    task = Task(task_id="t1", tenant="acme", owner="alice", goal="g")
    await notices.task_status(task, TaskStatus.COMPLETED, TaskStatus.RUNNING)
    kept = (await store.list(HistoryQuery("acme"))).items
    assert [(e.step, e.time, e.actor, e.outcome) for e in kept] == [
        (ActionStepKind.OPENED, NOW, "", ""),
        (ActionStepKind.TIMED_OUT, later, DEADLINE_ACTOR, "denied"),
    ]
    assert {(e.task_id, e.request_id, e.roles) for e in kept} == {("t1", "c1", ("finance",))}
