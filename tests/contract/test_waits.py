"""The WaitStore contract, in memory, on SQLite and on the machine's PostgreSQL: waits
opened once per slot, answered or expired only while open (by exactly one of racing
replicas), closed, nudged, forgotten; the periodic pass's queries (deadlines due, answers
not taken in, polls due) and the compare-and-set that claims one poll.

On SQL each `replica` is a store on a database (engine and writer) of its own, as on a
replica of its own, so races are decided by the database, not by one process's writer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from core.errors import ApprovalNotPendingError
from records.waits import Wait, WaitAction, WaitKind, WaitState
from stores.sql.database import Database
from stores.sql.engine import create_engine, migrate
from stores.waits.base import WaitStore
from stores.waits.memory import InMemoryWaitStore
from stores.waits.sql import SqlWaitStore
from tests.contract.conftest import SQL_BACKENDS, empty_database

NOW = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)
Replicas = Callable[[], WaitStore]
"""replica(): the wait store of another replica on the same database."""


def at(seconds: float) -> datetime:
    return NOW + timedelta(seconds=seconds)


def a_wait(task_id: str = "task-1", slot: str = "call_1", **fields: Any) -> Wait:
    values: dict[str, Any] = {"kind": WaitKind.APPROVAL, "created_at": NOW, **fields}
    return Wait(tenant=values.pop("tenant", "acme"), task_id=task_id, slot=slot, **values)


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def replica(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Replicas]:
    if request.param == "memory":
        store = InMemoryWaitStore()
        yield lambda: store
        return
    async with empty_database(request.param, tmp_path) as (url, schema):
        await migrate(url, schema)
        databases: list[Database] = []

        def shared() -> WaitStore:
            database = Database(create_engine(url, schema=schema))
            databases.append(database)
            return SqlWaitStore(database)

        try:
            yield shared
        finally:
            for database in databases:
                await database.close()


@pytest.fixture
def waits(replica: Replicas) -> WaitStore:
    return replica()


async def test_open_keeps_the_first_wait_of_a_slot(waits: WaitStore) -> None:
    first = a_wait(detail='{"path": "/etc"}', roles=("approver",))
    assert await waits.open(first) == (first, True)
    again = replace(first, detail="another", created_at=at(5))
    stored, new = await waits.open(again)
    assert (stored, new) == (first, False)
    assert stored.detail == '{"path": "/etc"}'
    assert await waits.get("task-1", "call_1") == first
    assert await waits.get("task-1", "call_2") is None
    assert await waits.get("task-2", "call_1") is None


async def test_racing_openers_of_one_slot_share_one_wait(replica: Replicas) -> None:
    stores = [replica() for _ in range(4)]
    opened = await asyncio.gather(
        *(stores[i % 4].open(a_wait(detail=f"opener {i}")) for i in range(10))
    )
    assert sum(new for _, new in opened) == 1
    [kept] = {wait.detail for wait, _ in opened}
    assert [w.detail for w in await stores[0].of_task("task-1")] == [kept]


async def test_every_field_round_trips(waits: WaitStore) -> None:
    plus_two = timezone(timedelta(hours=2))
    wait = Wait(
        tenant="acme",
        task_id="task-1",
        slot="question:call_7",
        kind=WaitKind.QUESTION,
        created_at=NOW.astimezone(plus_two),
        root_task_id="task-0",
        agent="helper@3",
        owner="alice",
        roles=("approver", "lead"),
        tool_name="shell",
        detail="Which branch — main or ünïcode?",
        deadline_at=at(60),
        on_deadline=WaitAction.FAIL,
        check_at=at(1).astimezone(plus_two),
        checks=0,
    )
    await waits.open(wait)
    stored = await waits.get("task-1", "question:call_7")
    assert stored == wait
    assert stored is not None
    assert stored.created_at == NOW
    assert stored.check_at == at(1)
    assert stored.created_at.utcoffset() is not None


async def test_an_answer_moves_an_open_wait_only(waits: WaitStore) -> None:
    await waits.open(a_wait())
    answered = await waits.answer(
        "acme", "task-1", "call_1", WaitKind.APPROVAL, {"approved": True}, "bob", at(3)
    )
    assert answered.state is WaitState.ANSWERED
    assert answered.done
    assert (answered.answer, answered.answered_by, answered.answered_at) == (
        {"approved": True},
        "bob",
        at(3),
    )
    assert await waits.get("task-1", "call_1") == answered
    with pytest.raises(ApprovalNotPendingError):  # answered already
        await waits.answer("acme", "task-1", "call_1", WaitKind.APPROVAL, {}, "carol", at(4))
    stored = await waits.get("task-1", "call_1")
    assert stored is not None
    assert stored.answer == {"approved": True}
    assert stored.answered_by == "bob"


@pytest.mark.parametrize(
    ("tenant", "task_id", "slot", "kind"),
    [
        ("globex", "task-1", "call_1", WaitKind.APPROVAL),  # another tenant's task
        ("acme", "task-1", "call_1", WaitKind.QUESTION),  # not what it waits for
        ("acme", "task-1", "call_2", WaitKind.APPROVAL),  # no wait in that slot
        ("acme", "task-9", "call_1", WaitKind.APPROVAL),  # no such task
    ],
)
async def test_an_answer_to_what_is_not_waited_for_is_refused(
    waits: WaitStore, tenant: str, task_id: str, slot: str, kind: WaitKind
) -> None:
    await waits.open(a_wait())
    with pytest.raises(ApprovalNotPendingError):
        await waits.answer(tenant, task_id, slot, kind, {"approved": True}, "mallory", at(1))
    assert await waits.get("task-1", "call_1") == a_wait()
    stored = await waits.get("task-1", "call_1")
    assert stored is not None
    assert stored.state is WaitState.OPEN
    assert stored.answer is None


async def test_exactly_one_of_twenty_racing_answers_wins(replica: Replicas) -> None:
    stores = [replica() for _ in range(4)]
    await stores[0].open(a_wait())

    async def answer(i: int) -> Wait | None:
        try:
            return await stores[i % 4].answer(
                "acme", "task-1", "call_1", WaitKind.APPROVAL, {"by": i}, f"p{i}", at(i)
            )
        except ApprovalNotPendingError:
            return None

    results = await asyncio.gather(*(answer(i) for i in range(20)))
    [winner] = [r for r in results if r is not None]
    i = results.index(winner)
    assert (winner.answer, winner.answered_by, winner.answered_at) == ({"by": i}, f"p{i}", at(i))
    stored = await stores[1].get("task-1", "call_1")
    assert stored is not None
    assert (stored.answer, stored.answered_by, stored.answered_at) == ({"by": i}, f"p{i}", at(i))


async def test_expire_close_and_nudge(waits: WaitStore) -> None:
    await waits.open(a_wait(slot="late", deadline_at=at(10)))
    await waits.open(a_wait(slot="call_1"))
    assert await waits.nudge("task-1", "late") is True
    assert await waits.nudge("task-1", "late") is True
    assert await waits.expire("task-1", "late", at(10)) is True
    assert await waits.expire("task-1", "late", at(11)) is False  # once
    assert await waits.nudge("task-1", "late") is False  # not open
    expired = await waits.get("task-1", "late")
    assert expired is not None
    assert (expired.state, expired.answered_at, expired.changes) == (WaitState.EXPIRED, at(10), 2)
    with pytest.raises(ApprovalNotPendingError):
        await waits.answer("acme", "task-1", "late", WaitKind.APPROVAL, {}, "bob", at(12))

    await waits.close("task-1", "call_1")  # still open: nothing to take in
    still = await waits.get("task-1", "call_1")
    assert still is not None
    assert still.state is WaitState.OPEN
    await waits.answer("acme", "task-1", "call_1", WaitKind.APPROVAL, {"ok": 1}, "bob", at(2))
    await waits.close("task-1", "call_1")
    await waits.close("task-1", "late")
    await waits.close("task-1", "nothing-there")
    closed = await waits.get("task-1", "call_1")
    assert closed is not None
    assert closed.state is WaitState.CLOSED
    assert closed.done
    assert (closed.answer, closed.answered_by) == ({"ok": 1}, "bob")  # kept for a resume
    late = await waits.get("task-1", "late")
    assert late is not None
    assert late.state is WaitState.CLOSED
    assert await waits.expire("task-1", "call_1", at(20)) is False
    assert await waits.nudge("task-1", "missing") is False
    assert await waits.expire("task-1", "missing", at(20)) is False


async def test_forget_removes_every_wait_of_the_task_only(waits: WaitStore) -> None:
    await waits.open(a_wait(slot="a"))
    await waits.open(a_wait(slot="b", kind=WaitKind.CHILD))
    await waits.open(a_wait("task-2", slot="a"))
    await waits.forget("task-1")
    await waits.forget("task-never")
    assert await waits.of_task("task-1") == []
    assert await waits.get("task-1", "a") is None
    assert [w.task_id for w in await waits.of_task("task-2")] == ["task-2"]
    assert (await waits.open(a_wait(slot="a")))[1] is True  # a slot forgotten is free again


async def test_tasks_lists_each_task_with_waits_once(waits: WaitStore) -> None:
    await waits.open(a_wait("task-2", slot="a", tenant="beta"))
    await waits.open(a_wait("task-1", slot="a"))
    await waits.open(a_wait("task-1", slot="b", kind=WaitKind.CHILD))
    assert await waits.tasks(10) == [("acme", "task-1"), ("beta", "task-2")]
    assert len(await waits.tasks(1)) == 1
    await waits.forget("task-1")
    assert await waits.tasks(10) == [("beta", "task-2")]


async def test_of_task_is_oldest_first(waits: WaitStore) -> None:
    for slot, seconds in [("c", 30), ("a", 10), ("d", 40), ("b", 20)]:
        await waits.open(a_wait(slot=slot, created_at=at(seconds)))
    await waits.open(a_wait("task-2", slot="z", created_at=at(0)))
    assert [w.slot for w in await waits.of_task("task-1")] == ["a", "b", "c", "d"]
    assert await waits.of_task("task-none") == []


async def test_due_lists_open_waits_past_their_deadline_earliest_first(waits: WaitStore) -> None:
    await waits.open(a_wait("t-late", deadline_at=at(30)))
    await waits.open(a_wait("t-first", deadline_at=at(5)))
    await waits.open(a_wait("t-now", deadline_at=at(20)))
    await waits.open(a_wait("t-future", deadline_at=at(21)))
    await waits.open(a_wait("t-never"))
    await waits.open(a_wait("t-answered", deadline_at=at(1)))
    await waits.answer("acme", "t-answered", "call_1", WaitKind.APPROVAL, {}, "bob", at(0))
    await waits.open(a_wait("t-expired", deadline_at=at(2)))
    await waits.expire("t-expired", "call_1", at(2))
    assert [w.task_id for w in await waits.due(at(20), 10)] == ["t-first", "t-now"]
    assert [w.task_id for w in await waits.due(at(30), 2)] == ["t-first", "t-now"]
    assert [w.task_id for w in await waits.due(at(100), 10)] == [
        "t-first",
        "t-now",
        "t-future",
        "t-late",
    ]
    assert await waits.due(at(4), 10) == []
    assert await waits.due(at(100), 0) == []


async def test_unclaimed_lists_ended_waits_not_taken_in_oldest_first(waits: WaitStore) -> None:
    for task in ("t-a", "t-b", "t-c", "t-d", "t-open"):
        await waits.open(a_wait(task, deadline_at=at(100)))
    await waits.answer("acme", "t-b", "call_1", WaitKind.APPROVAL, {}, "bob", at(10))
    await waits.expire("t-a", "call_1", at(5))
    await waits.answer("acme", "t-c", "call_1", WaitKind.APPROVAL, {}, "bob", at(20))
    await waits.answer("acme", "t-d", "call_1", WaitKind.APPROVAL, {}, "bob", at(7))
    await waits.close("t-d", "call_1")  # taken in
    assert [w.task_id for w in await waits.unclaimed(at(10), 10)] == ["t-a", "t-b"]
    assert [w.task_id for w in await waits.unclaimed(at(60), 10)] == ["t-a", "t-b", "t-c"]
    assert [w.task_id for w in await waits.unclaimed(at(60), 1)] == ["t-a"]
    assert await waits.unclaimed(at(4), 10) == []
    [expired, answered] = await waits.unclaimed(at(10), 10)
    assert (expired.state, answered.state) == (WaitState.EXPIRED, WaitState.ANSWERED)


async def test_polls_list_open_waits_of_a_kind_whose_look_is_due(waits: WaitStore) -> None:
    remote = WaitKind.REMOTE
    await waits.open(a_wait("t-soon", "r1", kind=remote, check_at=at(5)))
    await waits.open(a_wait("t-first", "r1", kind=remote, check_at=at(1)))
    await waits.open(a_wait("t-later", "r1", kind=remote, check_at=at(50)))
    await waits.open(a_wait("t-unset", "r1", kind=remote))  # never looked at: due now
    await waits.open(a_wait("t-child", "c1", kind=WaitKind.CHILD, check_at=at(1)))
    await waits.open(a_wait("t-ended", "r1", kind=remote, check_at=at(1)))
    await waits.expire("t-ended", "r1", at(2))
    due = await waits.polls(remote, at(10), 10)
    assert [w.task_id for w in due] == ["t-first", "t-soon", "t-unset"]
    assert [w.task_id for w in await waits.polls(remote, at(10), 2)] == ["t-first", "t-soon"]
    assert [w.task_id for w in await waits.polls(WaitKind.CHILD, at(10), 10)] == ["t-child"]
    assert await waits.polls(WaitKind.TURN, at(10), 10) == []

    first = due[0]
    assert await waits.reschedule(first, at(30)) is True
    assert await waits.reschedule(first, at(40)) is False  # read before the other's look
    moved = await waits.get("t-first", "r1")
    assert moved is not None
    assert (moved.check_at, moved.checks) == (at(30), 1)
    assert [w.task_id for w in await waits.polls(remote, at(10), 10)] == ["t-soon", "t-unset"]
    assert await waits.reschedule(moved, at(60)) is True
    expired = await waits.get("t-ended", "r1")
    assert expired is not None
    assert await waits.reschedule(expired, at(60)) is False


async def test_exactly_one_of_ten_racing_reschedules_wins(replica: Replicas) -> None:
    stores = [replica() for _ in range(4)]
    await stores[0].open(a_wait(kind=WaitKind.REMOTE, check_at=at(1)))
    [read] = await stores[0].polls(WaitKind.REMOTE, at(2), 10)
    results = await asyncio.gather(*(stores[i % 4].reschedule(read, at(10 + i)) for i in range(10)))
    assert sum(results) == 1
    winner = results.index(True)
    stored = await stores[2].get("task-1", "call_1")
    assert stored is not None
    assert (stored.checks, stored.check_at) == (1, at(10 + winner))


ANSWERS: list[dict[str, Any]] = [
    {"approved": False, "comment": "nein — zu gefährlich 🚫", "by_role": None},
    {"text": "main", "nested": {"list": [1, 2.5, -3, True, None, {"deep": ["x", {"y": []}]}]}},
    {'quote"s': "back\\slash\nnewline\ttab", "null": "a\x00b", "empty": {}, "n": 10**18},
    {"": "", "日本語": "テキスト", "emoji": "🧪" * 50, "float": 1e-12},
]


@pytest.mark.parametrize("answer", ANSWERS)
async def test_answers_round_trip_exactly(waits: WaitStore, answer: dict[str, Any]) -> None:
    await waits.open(a_wait(kind=WaitKind.QUESTION))
    answered = await waits.answer(
        "acme", "task-1", "call_1", WaitKind.QUESTION, answer, "alice", at(1)
    )
    stored = await waits.get("task-1", "call_1")
    assert stored is not None
    assert answered.answer == stored.answer == answer
    assert list(stored.answer) == list(answer)  # keys in their order


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_a_nul_in_what_is_asked_is_kept_as_a_replacement_character(
    kind: str, tmp_path: Path
) -> None:
    async with empty_database(kind, tmp_path) as (url, schema):
        await migrate(url, schema)
        database = Database(create_engine(url, schema=schema))
        try:
            waits = SqlWaitStore(database)
            stored, _ = await waits.open(a_wait(kind=WaitKind.QUESTION, detail="a\x00b"))
            assert stored.detail == "a\ufffdb"
        finally:
            await database.close()
