"""The WaitStore's inbox (`pending`), in memory, on SQLite and on the machine's PostgreSQL:
a tenant's open waits for a person, oldest first (then by task and slot), a page at a
time; only those the audience may answer (by kind: anyone, a role the wait names, the
task's owner); filtered by agent (any version or one) and by task tree. Every backend
lists exactly what `PendingQuery.matches` says, in the same order.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import timedelta, timezone
from typing import Any

import pytest

from records.paging import TimeKeyCursor
from records.waits import (
    PERSON_KINDS,
    Audience,
    PendingQuery,
    Wait,
    WaitKind,
    WaitState,
    wait_order,
)
from stores.waits.base import WaitStore
from tests.contract.test_waits import Replicas, a_wait, at, replica  # noqa: F401 - a fixture

APPROVERS = frozenset({WaitKind.APPROVAL, WaitKind.BUDGET})
ANSWERS = frozenset({WaitKind.QUESTION, WaitKind.RESUME})
EVERYTHING = Audience(anyone=PERSON_KINDS)


@pytest.fixture
def inbox(replica: Replicas) -> WaitStore:  # noqa: F811 - the fixture imported above
    return replica()


def query(audience: Audience = EVERYTHING, **fields: Any) -> PendingQuery:
    return PendingQuery("acme", audience, **fields)


async def every_page(waits: WaitStore, asked: PendingQuery) -> list[list[Wait]]:
    pages: list[list[Wait]] = []
    after: TimeKeyCursor | None = None
    while True:
        page = await waits.pending(replace(asked, after=after))
        pages.append(list(page.items))
        if page.next is None:
            return pages
        after = page.next


def ids(found: list[Wait]) -> list[tuple[str, str]]:
    return [(w.task_id, w.slot) for w in found]


async def test_open_waits_for_a_person_oldest_first_then_by_task_and_slot(
    inbox: WaitStore,
) -> None:
    plus_two = timezone(timedelta(hours=2))
    opened = [
        a_wait("t2", "c2", created_at=at(5)),
        a_wait("t2", "c1", created_at=at(5)),  # same moment: by slot
        a_wait("t1", "c9", created_at=at(5).astimezone(plus_two)),  # same moment: by task
        a_wait("t3", "question:c1", kind=WaitKind.QUESTION, created_at=at(1)),
        a_wait("t4", "resume:0", kind=WaitKind.RESUME, created_at=at(9)),
        a_wait("t5", "budget:b1", kind=WaitKind.BUDGET, created_at=at(3)),
        a_wait("t6", "t7", kind=WaitKind.CHILD, created_at=at(0)),  # not for a person
        a_wait("t6", "turn", kind=WaitKind.TURN, created_at=at(0)),
        a_wait("t6", "r1", kind=WaitKind.REMOTE, created_at=at(0)),
        a_wait("t8", "c1", tenant="globex", created_at=at(0)),  # another tenant's
    ]
    for wait in opened:
        await inbox.open(wait)
    expected = [
        ("t3", "question:c1"),
        ("t5", "budget:b1"),
        ("t1", "c9"),
        ("t2", "c1"),
        ("t2", "c2"),
        ("t4", "resume:0"),
    ]
    assert ids(list((await inbox.pending(query())).items)) == expected
    pages = await every_page(inbox, query(limit=2))
    assert [ids(p) for p in pages] == [expected[0:2], expected[2:4], expected[4:6]]
    assert [ids(p) for p in await every_page(inbox, query(limit=4))] == [
        expected[:4],
        expected[4:],
    ]
    assert [ids(p) for p in await every_page(inbox, query(limit=6))] == [expected]
    first = (await inbox.pending(query(limit=1))).items[0]
    assert first == opened[3]  # every field as opened


async def test_answered_expired_and_closed_waits_are_not_pending(inbox: WaitStore) -> None:
    for task_id in ("t1", "t2", "t3", "t4"):
        await inbox.open(a_wait(task_id, "c1"))
    page = await inbox.pending(query(limit=1))
    await inbox.answer("acme", "t2", "c1", WaitKind.APPROVAL, {"approved": True}, "bob", at(1))
    await inbox.expire("t3", "c1", at(1))
    await inbox.answer("acme", "t4", "c1", WaitKind.APPROVAL, {"approved": False}, "bob", at(1))
    await inbox.close("t4", "c1")
    assert ids(list(page.items)) == [("t1", "c1")]
    rest = await inbox.pending(query(after=page.next))
    assert (ids(list(rest.items)), rest.next) == ([], None)
    await inbox.forget("t1")
    assert (await inbox.pending(query())).items == ()


async def test_the_audience_sees_what_it_may_answer(inbox: WaitStore) -> None:
    for wait in (
        a_wait("t1", "c1", roles=("finance", "admin"), owner="alice"),
        a_wait("t2", "c1", roles=("ops", "admin"), owner="alice"),
        a_wait("t3", "budget:b1", kind=WaitKind.BUDGET, roles=("finance",), owner="bob"),
        a_wait("t4", "question:c1", kind=WaitKind.QUESTION, owner="alice"),
        a_wait("t5", "question:c1", kind=WaitKind.QUESTION, owner="bob"),
        a_wait("t6", "resume:0", kind=WaitKind.RESUME, owner="bob"),
    ):
        await inbox.open(wait)

    async def listed(audience: Audience) -> list[str]:
        return [w.task_id for w in (await inbox.pending(query(audience))).items]

    finance = Audience(by_role=APPROVERS, roles=("finance",), owned=ANSWERS, owner="carol")
    assert await listed(finance) == ["t1", "t3"]
    assert await listed(replace(finance, roles=("ops",))) == ["t2"]
    assert await listed(replace(finance, roles=("ops", "finance"))) == ["t1", "t2", "t3"]
    # role names match whole, and as written
    for near in ("fin", "Finance", "finance ", '"finance"', "finance, admin"):
        assert await listed(replace(finance, roles=(near,))) == [], near
    # owners answer their own tasks' questions and resumes
    alice = Audience(by_role=APPROVERS, owned=ANSWERS, owner="alice")
    assert await listed(alice) == ["t4"]
    assert await listed(replace(alice, owner="bob")) == ["t5", "t6"]
    # a caller who may answer anyone's questions (and no more)
    assert await listed(Audience(anyone=frozenset({WaitKind.QUESTION}))) == ["t4", "t5"]
    assert await listed(Audience(anyone=PERSON_KINDS).narrowed(frozenset({WaitKind.RESUME}))) == [
        "t6"
    ]
    # nothing to answer: nothing listed
    assert await listed(Audience()) == []
    assert await listed(Audience(by_role=APPROVERS, owned=ANSWERS)) == []  # no role, no id


async def test_filtered_by_agent_and_by_task_tree(inbox: WaitStore) -> None:
    for wait in (
        a_wait("t1", "c1", agent="helper@1", root_task_id="t1"),
        a_wait("t2", "c1", agent="helper@2", root_task_id="t1"),
        a_wait("t3", "c1", agent="helper@12", root_task_id="t3"),
        a_wait("t4", "c1", agent="helpers@1", root_task_id="t3"),
        a_wait("t5", "c1", agent="help@1", root_task_id="t5"),
        a_wait("t6", "c1", agent="", root_task_id="t6"),
    ):
        await inbox.open(wait)

    async def listed(**fields: Any) -> list[str]:
        return [w.task_id for w in (await inbox.pending(query(**fields))).items]

    assert await listed(agent="helper") == ["t1", "t2", "t3"]
    assert await listed(agent="helper", agent_version=1) == ["t1"]
    assert await listed(agent="helper", agent_version=12) == ["t3"]
    assert await listed(agent="help") == ["t5"]
    assert await listed(agent="nobody") == []
    assert await listed(root_task_id="t1") == ["t1", "t2"]
    assert await listed(root_task_id="t3", agent="helper") == ["t3"]
    assert await listed() == ["t1", "t2", "t3", "t4", "t5", "t6"]


async def test_every_backend_lists_what_the_query_matches(inbox: WaitStore) -> None:
    """Waits of every combination of kind, roles, owner, agent and tree, listed page by
    page for many audiences: exactly those `PendingQuery.matches`, in the list's order."""
    made: list[Wait] = []
    combinations = itertools.product(
        [*sorted(PERSON_KINDS, key=lambda k: k.value), WaitKind.CHILD],
        [(), ("finance",), ("ops", "admin")],
        ["alice", "bob"],
        ["", "helper@1", "helper@2", "other@1"],
    )
    for n, (kind, roles, owner, agent) in enumerate(combinations):
        wait = a_wait(
            f"t{n:03d}",
            f"s{n % 3}",
            kind=kind,
            roles=roles,
            owner=owner,
            agent=agent,
            root_task_id=f"t{n - n % 4:03d}",
            created_at=at(n % 7),
        )
        made.append(wait)
        await inbox.open(wait)
    await inbox.answer("acme", "t001", "s1", made[1].kind, {}, "x", at(9))
    made[1] = replace(made[1], state=WaitState.ANSWERED)
    audiences = [
        EVERYTHING,
        Audience(by_role=APPROVERS, roles=("finance", "admin"), owned=ANSWERS, owner="bob"),
        Audience(anyone=ANSWERS, by_role=APPROVERS, roles=("ops",)),
        Audience(owned=PERSON_KINDS, owner="alice"),
    ]
    filters: list[dict[str, Any]] = [
        {},
        {"agent": "helper"},
        {"agent": "helper", "agent_version": 2},
        {"root_task_id": "t004"},
    ]
    for audience, fields in itertools.product(audiences, filters):
        asked = query(audience, limit=5, **fields)
        expected = sorted((w for w in made if asked.matches(w)), key=wait_order)
        pages = await every_page(inbox, asked)
        assert [w for page in pages for w in page] == expected, (audience, fields)
        assert all(len(page) == 5 for page in pages[:-1])
