"""What a wait opened under an approval rule keeps, in memory, on SQLite and on the
machine's PostgreSQL: its rule's roles, reminder, escalation level and step round-trip;
a reminder is sent by exactly one of racing replicas, an escalation made by exactly one
(and never twice), an answer bound to an escalation level refused once the wait moved on;
a deadline that approves leaves its answer; the inbox shows a rule's waits to the holders
of its roles only.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from core.errors import ApprovalNotPendingError
from records.waits import (
    TIMED_OUT,
    Audience,
    Escalation,
    PendingQuery,
    Wait,
    WaitAction,
    WaitKind,
    WaitState,
)
from stores.waits.base import WaitStore
from tests.contract.test_waits import Replicas, a_wait, at, replica  # noqa: F401 - a fixture

STEP = Escalation(("ops", "oncall"), 600.0, WaitAction.APPROVE, 60.0, at(3_600))


@pytest.fixture
def waits(replica: Replicas) -> WaitStore:  # noqa: F811 - the fixture imported above
    return replica()


def ruled(**fields: Any) -> Wait:
    values: dict[str, Any] = {
        "roles": ("finance",),
        "roles_by_rule": True,
        "deadline_at": at(300),
        "on_deadline": WaitAction.ESCALATE,
        "remind_at": at(240),
        "escalation": STEP,
        **fields,
    }
    return a_wait(**values)


async def test_a_rule_s_fields_round_trip(waits: WaitStore) -> None:
    wait = ruled()
    await waits.open(wait)
    stored = await waits.get("task-1", "call_1")
    assert stored == wait
    assert stored is not None
    assert (stored.escalation, stored.remind_at, stored.roles_by_rule) == (STEP, at(240), True)
    plain = a_wait(slot="call_2")
    await waits.open(plain)
    found = await waits.get("task-1", "call_2")
    assert found == plain
    assert found is not None
    assert (found.escalation, found.remind_at, found.roles_by_rule) == (None, None, False)
    assert found.escalation_level == 0


async def test_reminders_are_due_earliest_first_and_sent_once(waits: WaitStore) -> None:
    await waits.open(ruled(slot="later", remind_at=at(250)))
    await waits.open(ruled(slot="sooner", remind_at=at(200)))
    await waits.open(ruled(slot="none", remind_at=None))
    await waits.open(ruled(slot="answered", remind_at=at(100)))
    await waits.answer("acme", "task-1", "answered", WaitKind.APPROVAL, {}, "bob", at(1))
    assert [w.slot for w in await waits.reminders(at(199), 10)] == []
    due = await waits.reminders(at(250), 10)
    assert [w.slot for w in due] == ["sooner", "later"]
    assert [w.slot for w in await waits.reminders(at(250), 1)] == ["sooner"]
    assert await waits.remind(due[0]) is True
    assert await waits.remind(due[0]) is False  # sent
    stored = await waits.get("task-1", "sooner")
    assert stored is not None
    assert stored.remind_at is None
    assert [w.slot for w in await waits.reminders(at(250), 10)] == ["later"]


async def test_exactly_one_of_ten_racing_replicas_sends_a_reminder(
    replica: Replicas,  # noqa: F811 - the fixture imported above
) -> None:
    stores = [replica() for _ in range(4)]
    await stores[0].open(ruled())
    [read] = await stores[1].reminders(at(240), 10)
    sent = await asyncio.gather(*(stores[i % 4].remind(read) for i in range(10)))
    assert sum(sent) == 1


async def test_exactly_one_of_ten_racing_replicas_escalates_and_only_once(
    replica: Replicas,  # noqa: F811 - the fixture imported above
) -> None:
    stores = [replica() for _ in range(4)]
    await stores[0].open(ruled())
    [due] = await stores[1].due(at(300), 10)
    assert due.escalates
    moved = due.escalated(at(300))
    assert (moved.roles, moved.deadline_at, moved.on_deadline) == (
        ("ops", "oncall"),
        at(900),
        WaitAction.APPROVE,
    )
    assert (moved.remind_at, moved.escalation_level, moved.escalation) == (at(840), 1, None)
    won = await asyncio.gather(*(stores[i % 4].escalate(moved) for i in range(10)))
    assert sum(won) == 1
    stored = await stores[2].get("task-1", "call_1")
    assert stored == moved
    assert await stores[3].escalate(moved) is False  # never twice
    assert await stores[0].due(at(899), 10) == []
    assert [w.slot for w in await stores[0].due(at(900), 10)] == ["call_1"]


async def test_an_escalation_s_deadline_never_passes_the_task_s_wait_limit(
    waits: WaitStore,
) -> None:
    capped = ruled(escalation=replace(STEP, latest=at(500)))
    await waits.open(capped)
    moved = capped.escalated(at(300))
    assert moved.deadline_at == at(500)
    assert moved.remind_at == at(440)
    assert await waits.escalate(moved) is True
    assert await waits.get("task-1", "call_1") == moved


async def test_an_answer_bound_to_a_level_is_refused_once_the_wait_moved_on(
    waits: WaitStore,
) -> None:
    await waits.open(ruled())
    assert await waits.escalate(ruled().escalated(at(300))) is True
    with pytest.raises(ApprovalNotPendingError):  # checked against the roles before the move
        await waits.answer(
            "acme", "task-1", "call_1", WaitKind.APPROVAL, {}, "fay", at(301), escalation_level=0
        )
    answered = await waits.answer(
        "acme", "task-1", "call_1", WaitKind.APPROVAL, {"ok": 1}, "otto", at(302),
        escalation_level=1,
    )  # fmt: skip
    assert (answered.state, answered.answered_by) == (WaitState.ANSWERED, "otto")
    assert await waits.escalate(ruled().escalated(at(303))) is False  # answered: stays


async def test_a_deadline_that_approves_leaves_its_answer(waits: WaitStore) -> None:
    await waits.open(ruled(on_deadline=WaitAction.APPROVE, escalation=None))
    answer = {"approved": True, TIMED_OUT: True}
    assert await waits.expire("task-1", "call_1", at(300), answer) is True
    assert await waits.expire("task-1", "call_1", at(301), answer) is False
    stored = await waits.get("task-1", "call_1")
    assert stored is not None
    assert (stored.state, stored.answer, stored.answered_at) == (WaitState.EXPIRED, answer, at(300))
    assert stored.timed_out
    await waits.close("task-1", "call_1")
    closed = await waits.get("task-1", "call_1")
    assert closed is not None
    assert (closed.state, closed.timed_out) == (WaitState.CLOSED, True)
    assert await waits.remind(closed) is False  # no longer open


async def test_the_inbox_shows_a_rule_s_wait_to_the_holders_of_its_roles(
    waits: WaitStore,
) -> None:
    await waits.open(ruled(task_id="t-rule"))
    await waits.open(a_wait(task_id="t-table", roles=("finance", "approver")))
    approvals = frozenset({WaitKind.APPROVAL})

    def listed(audience: Audience) -> PendingQuery:
        return PendingQuery("acme", audience)

    # holds the rule's role, not the table's: the rule's wait only
    by_rule = Audience(roles=("finance",), by_rule=approvals)
    assert [w.task_id for w in (await waits.pending(listed(by_rule))).items] == ["t-rule"]
    # an approver of the table holding neither: nothing
    other = Audience(by_role=approvals, by_rule=approvals, roles=("approver-x",))
    assert (await waits.pending(listed(other))).items == ()
    # an approver of the table holding the rule's role too: both
    both = Audience(by_role=approvals, by_rule=approvals, roles=("finance",))
    found = [w.task_id for w in (await waits.pending(listed(both))).items]
    assert sorted(found) == ["t-rule", "t-table"]
    # escalated: the rule's first roles no longer see it, the escalation's do
    assert await waits.escalate(ruled(task_id="t-rule").escalated(at(300))) is True
    assert (await waits.pending(listed(by_rule))).items == ()
    ops = Audience(roles=("oncall",), by_rule=approvals)
    assert [w.task_id for w in (await waits.pending(listed(ops))).items] == ["t-rule"]
