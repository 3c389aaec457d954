"""The trace store's contract, in memory, on SQLite and on the machine's PostgreSQL: a
task's entries and messages kept once each (a retried write changes nothing), its head
counting what is kept, pages in entry order carrying the messages their entries name
first, children, the retention sweep and ForgetUser, and records that round-trip whole."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError

from records.tasks import TokenUsage
from records.traces.model import (
    CriticTrace,
    DecisionTrace,
    ModelCallTrace,
    ToolCallTrace,
    ToolSource,
    TracedMessage,
    TracedToolRequest,
    TraceEntry,
    TraceOwner,
    entry_id,
)
from records.traces.size import entry_bytes, message_bytes
from stores.sql.database import Database
from stores.sql.engine import create_engine
from stores.traces.base import TraceStore
from stores.traces.memory import InMemoryTraceStore
from stores.traces.sql import SqlTraceStore
from stores.traces.tables import trace_entries, trace_heads, trace_messages
from tests.contract.conftest import SQL_BACKENDS
from tests.contract.usage_backends import Migrated, migrated_once

T0 = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


@pytest.fixture(scope="module", params=["memory", *SQL_BACKENDS])
def backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Migrated | None]:
    """The backend's database, migrated once for the module (None: in memory)."""
    if request.param == "memory":
        yield None
        return
    with migrated_once(request.param, tmp_path_factory.mktemp("traces")) as migrated:
        yield migrated


@asynccontextmanager
async def emptied(migrated: Migrated) -> AsyncIterator[Database]:
    database = Database(create_engine(migrated.url, schema=migrated.schema))
    try:
        async with database.engine.begin() as connection:
            for table in (trace_entries, trace_messages, trace_heads):
                await connection.execute(delete(table))
        yield database
    finally:
        await database.close()


class Clock:
    """When the store's writes are (a test moves it)."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(backend: Migrated | None, clock: Clock) -> AsyncIterator[TraceStore]:
    if backend is None:
        yield InMemoryTraceStore(clock)
        return
    async with emptied(backend) as database:
        yield SqlTraceStore(database, clock)


def owner(task_id: str = "t1", **fields: object) -> TraceOwner:
    values: dict[str, object] = {
        "tenant": "acme",
        "user": "ann",
        "root_task_id": task_id,
        "parent_task_id": "",
        "agent": "support@2",
        "task": "find the invoice",
        "started": T0,
        **fields,
    }
    return TraceOwner(task_id=task_id, **values)  # type: ignore[arg-type]


def message(n: int, role: str = "user") -> TracedMessage:
    return TracedMessage(f"m{n:031d}", role, f"message {n} — ünïcode", cut=n == 3)


def model_call(task_id: str, n: int, ids: tuple[str, ...]) -> TraceEntry:
    detail = ModelCallTrace(
        role="executor",
        provider="openai",
        model="gpt-x",
        message_ids=ids,
        tools=("lookup",),
        parameters={"temperature": 0.2, "tool_choice": "auto"},
        reply_text=f"reply {n}",
        reply_tool_calls=(TracedToolRequest("call_1", "lookup", '{"n":1}'),),
        usage=TokenUsage(100, 10, cached_prompt_tokens=5, cost_micros=7),
        latency_seconds=0.25,
    )
    return TraceEntry(task_id, entry_id(1_000 + n, n), f"iteration-{n}", T0, detail)


def tool_call(task_id: str, n: int) -> TraceEntry:
    detail = ToolCallTrace(
        call_id=f"call_{n}",
        tool="lookup",
        arguments={"n": n, "token": "[REDACTED]"},
        arguments_key="ab" * 32,
        result_text=f"found {n}",
        result={"n": n, "rows": [1, 2]},
        error_kind="failed",
        error="no such row",
        duration_seconds=0.5,
        source=ToolSource.RECORDED,
        child_task_id="child-1",
    )
    return TraceEntry(task_id, entry_id(1_000 + n, n), f"iteration-{n}", T0, detail, cut=True)


def others(task_id: str, n: int) -> list[TraceEntry]:
    return [
        TraceEntry(
            task_id, entry_id(1_000 + n, n), "answer", T0, CriticTrace("answer", False, "thin")
        ),
        TraceEntry(
            task_id,
            entry_id(1_000 + n + 1, n + 1),
            "",
            T0,
            DecisionTrace("approval", "call_1", "send", "approve", "bob", "ok"),
        ),
    ]


async def test_a_write_is_kept_and_read_back_whole(store: TraceStore) -> None:
    messages = [message(1, "system"), message(2), message(3)]
    entries = [
        model_call("t1", 1, ("m" + "0" * 30 + "1", "m" + "0" * 30 + "2")),
        tool_call("t1", 2),
        model_call("t1", 3, tuple(m.message_id for m in messages)),
        *others("t1", 4),
    ]
    await store.write(owner(), entries, messages)

    page = await store.page("t1", "", 100)

    assert page.entries == tuple(entries)
    assert page.messages == tuple(messages)
    assert page.next_after == ""
    head = await store.head("t1")
    assert head is not None
    assert head.owner == owner()
    assert head.entries == 5
    assert not head.cut
    assert head.bytes == sum(map(entry_bytes, entries)) + sum(map(message_bytes, messages))


async def test_a_retried_write_and_a_message_sent_again_are_kept_once(store: TraceStore) -> None:
    first = [message(1), message(2)]
    call = model_call("t1", 1, tuple(m.message_id for m in first))
    await store.write(owner(), [call], first)
    await store.write(owner(), [call], first)  # the same batch again
    later = model_call("t1", 2, (*call.detail.message_ids, message(5).message_id))  # type: ignore[union-attr]
    await store.write(owner(task="ignored: the first write's owner stays"), [later], [message(5)])

    head = await store.head("t1")
    page = await store.page("t1", "", 10)

    assert head is not None
    assert head.entries == 2
    assert head.owner.task == "find the invoice"
    weight = entry_bytes(call) + entry_bytes(later) + sum(map(message_bytes, [*first, message(5)]))
    assert head.bytes == weight
    assert [m.message_id for m in page.messages] == [m.message_id for m in [*first, message(5)]]


async def test_pages_follow_entry_order_and_carry_the_messages_named_first(
    store: TraceStore,
) -> None:
    ids = [message(n).message_id for n in range(1, 7)]
    calls = [model_call("t1", n, tuple(ids[: 2 * n])) for n in (1, 2, 3)]
    await store.write(owner(), calls, [message(n) for n in range(1, 7)])

    first = await store.page("t1", "", 2)
    second = await store.page("t1", first.next_after, 2)

    assert first.entries == tuple(calls[:2])
    assert [m.message_id for m in first.messages] == ids[:4]
    assert first.next_after == calls[1].entry_id
    assert second.entries == (calls[2],)
    assert [m.message_id for m in second.messages] == ids[4:]
    assert second.next_after == ""
    assert await store.page("t1", calls[2].entry_id, 2) == (
        await store.page("nobody", "", 2)
    )  # past the end: empty, as a task without a trace


async def test_the_cut_is_kept_on_the_head(store: TraceStore) -> None:
    await store.write(owner(), [tool_call("t1", 1)], [])
    await store.write(owner(), [], [], cut=True)
    await store.write(owner(), [], [])

    head = await store.head("t1")

    assert head is not None
    assert head.cut
    assert head.entries == 1


async def test_children_are_listed_oldest_first_and_only_theirs(store: TraceStore) -> None:
    await store.write(owner("root"), [], [])
    for name, minutes in (("late", 5), ("early", 1), ("other", 2)):
        parent = "elsewhere" if name == "other" else "root"
        started = T0 + timedelta(minutes=minutes)
        await store.write(
            owner(name, parent_task_id=parent, root_task_id="root", started=started), [], []
        )

    assert await store.children("root") == ["early", "late"]
    assert await store.children("late") == []


async def test_the_sweep_deletes_the_traces_longest_unwritten_a_few_at_a_time(
    store: TraceStore, clock: Clock
) -> None:
    for n in range(5):
        task_id = f"t{n}"
        clock.now = T0 + timedelta(hours=n)
        await store.write(
            owner(task_id, started=T0),  # all started at once: the last write decides
            [model_call(task_id, 1, (message(1).message_id,))],
            [message(1)],
        )
    clock.now = T0 + timedelta(hours=9)  # t0, started first, still being written (parked)
    await store.write(owner("t0", started=T0), [tool_call("t0", 2)], [])

    assert await store.sweep(T0 + timedelta(hours=4), 2) == 2
    assert await store.sweep(T0 + timedelta(hours=4), 2) == 1
    assert await store.sweep(T0 + timedelta(hours=4), 2) == 0

    assert [await store.head(f"t{n}") is None for n in range(5)] == [False] + [True] * 3 + [False]
    assert (await store.page("t1", "", 10)).entries == ()
    assert len((await store.page("t0", "", 10)).entries) == 2
    assert len((await store.page("t4", "", 10)).messages) == 1


async def test_forget_user_deletes_only_that_users_traces(store: TraceStore) -> None:
    await store.write(owner("a1"), [tool_call("a1", 1)], [])
    await store.write(owner("a2"), [model_call("a2", 1, ())], [])
    await store.write(owner("b1", user="bob"), [tool_call("b1", 1)], [])
    await store.write(owner("c1", tenant="other"), [tool_call("c1", 1)], [])

    assert await store.forget_user("acme", "ann") == 2

    assert await store.head("a1") is None
    assert await store.head("a2") is None
    assert (await store.page("a1", "", 10)).entries == ()
    assert await store.head("b1") is not None
    assert await store.head("c1") is not None
    assert await store.forget_user("acme", "ann") == 0


async def test_a_long_trace_reads_whole_page_by_page(store: TraceStore) -> None:
    entries = [replace(tool_call("t1", n), cut=False) for n in range(450)]
    await store.write(owner(), entries, [])

    read: list[TraceEntry] = []
    after = ""
    while True:
        page = await store.page("t1", after, 100)
        read.extend(page.entries)
        if not page.next_after:
            break
        after = page.next_after

    assert read == entries
    head = await store.head("t1")
    assert head is not None
    assert head.entries == 450


async def test_a_fresh_tasks_write_reads_nothing_first_and_its_trace_goes_on(
    store: TraceStore,
) -> None:
    first = [message(1), message(2)]
    await store.write(owner(), [model_call("t1", 1, ("m" + "0" * 30 + "1",))], first, fresh=True)
    ids = (first[0].message_id, first[1].message_id, message(4).message_id)
    await store.write(owner(), [model_call("t1", 2, ids)], [message(4)])

    page = await store.page("t1", "", 10)
    assert [e.entry_id for e in page.entries] == [entry_id(1_001, 1), entry_id(1_002, 2)]
    assert page.entries[1].detail == model_call("t1", 2, ids).detail
    assert {m.message_id for m in page.messages} == {m.message_id for m in (*first, message(4))}


async def test_a_fresh_write_of_a_task_another_writer_kept_fails_and_its_retry_holds(
    backend: Migrated | None,
) -> None:
    """Two replicas' stores: the second believes the task fresh (a takeover of a task that
    never checkpointed); its write fails on the numbers the first took, nothing of it is
    kept, and the retry (not fresh: it reads what was kept) is kept whole."""
    if backend is None:
        pytest.skip("one process's memory has no second writer to meet")
    async with emptied(backend) as one, emptied(backend) as two:
        first, second = SqlTraceStore(one), SqlTraceStore(two)
        ids = (message(1).message_id,)
        await first.write(owner(), [model_call("t1", 1, ids)], [message(1)], fresh=True)
        later = model_call("t1", 2, (message(1).message_id, message(2).message_id))
        with pytest.raises(IntegrityError):  # the task's message number 0 is taken
            await second.write(owner(), [later], [message(2)], fresh=True)
        head = await second.head("t1")
        assert head is not None
        assert head.entries == 1
        await second.write(owner(), [later], [message(2)])
        page = await second.page("t1", "", 10)
        assert [e.detail for e in page.entries] == [model_call("t1", 1, ids).detail, later.detail]
        assert {m.message_id for m in page.messages} == {
            message(1).message_id,
            message(2).message_id,
        }


async def test_a_write_on_stale_numbers_fails_whole_and_its_retry_keeps_the_order(
    backend: Migrated | None,
) -> None:
    """One replica wrote m1, m2; another (reading them) went on with m4 then m3; the
    first, whose numbers are stale, names m1, m2, m3, m4: its write must not be kept on
    its stale numbers (m3 and m4 are the other way round in the database), and its
    retry, reading them again, reads back in the order it named them."""
    if backend is None:
        pytest.skip("one process's memory has no second writer to meet")
    async with emptied(backend) as one, emptied(backend) as two:
        first, second = SqlTraceStore(one), SqlTraceStore(two)
        m1, m2, m3, m4 = (message(n) for n in (1, 2, 4, 5))
        await first.write(owner(), [model_call("t1", 1, (m1.message_id, m2.message_id))], [m1, m2])
        theirs = model_call("t1", 2, (m1.message_id, m2.message_id, m4.message_id, m3.message_id))
        await second.write(owner(), [theirs], [m4, m3])
        named = (m1.message_id, m2.message_id, m3.message_id, m4.message_id)
        mine = model_call("t1", 3, named)
        with pytest.raises(IntegrityError):
            await first.write(owner(), [mine], [m3, m4])
        await first.write(owner(), [mine], [m3, m4])
        page = await first.page("t1", "", 10)
        assert [e.detail for e in page.entries] == [
            model_call("t1", 1, (m1.message_id, m2.message_id)).detail,
            theirs.detail,
            mine.detail,
        ]
