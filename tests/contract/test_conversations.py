"""The conversation store contract, on memory, SQLite and the machine's PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from datetime import timedelta
from pathlib import Path

import pytest

from core.errors import ConversationNotFoundError
from records.conversations.model import (
    Conversation,
    ConversationMessage,
    ConversationQuery,
    Turn,
    new_conversation_id,
)
from records.paging import Page, TimeCursor
from records.tasks import utcnow
from stores.conversations.base import ConversationStore
from stores.conversations.memory import InMemoryConversationStore
from stores.conversations.sql import SqlConversationStore
from tests.contract.conftest import SQL_BACKENDS, migrated_database
from tests.paging import every_page, page_sizes


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[ConversationStore]:
    if request.param == "memory":
        yield InMemoryConversationStore()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlConversationStore(database)


def turn(task_id: str, question: str, answer: str, *tools: tuple[str, str]) -> Turn:
    messages = [ConversationMessage("user", question, task_id, tokens=len(question.split()))]
    messages.extend(
        ConversationMessage("tool", result, task_id, tool_name=name, arguments='{"x": 1}', tokens=3)
        for name, result in tools
    )
    messages.append(ConversationMessage("assistant", answer, task_id, tokens=len(answer.split())))
    return Turn(task_id, tuple(messages))


async def new(store: ConversationStore, tenant: str = "acme", owner: str = "alice") -> str:
    conversation_id = new_conversation_id()
    await store.create(
        Conversation(conversation_id, tenant, owner, title="Billing", labels={"team": "a"})
    )
    return conversation_id


async def test_a_new_conversation_is_empty_and_round_trips(store: ConversationStore) -> None:
    conversation_id = await new(store)
    got = await store.get("acme", conversation_id)
    assert (got.title, dict(got.labels), got.created_by) == ("Billing", {"team": "a"}, "alice")
    assert (got.message_count, got.turn_count, got.total_tokens) == (0, 0, 0)
    assert (got.summary, got.summarized_through) == ("", 0)
    assert await store.messages("acme", conversation_id, 0, 10) == []
    with pytest.raises(ValueError, match="exists"):
        await store.create(got)


async def test_turns_number_their_messages_in_order(store: ConversationStore) -> None:
    conversation_id = await new(store)
    assert await store.append_turn("acme", conversation_id, turn("t1", "what is 2+2", "4"))
    assert await store.append_turn(
        "acme", conversation_id, turn("t2", "and times 3", "12", ("calculator", "12"))
    )
    messages = await store.messages("acme", conversation_id, 0, 10)
    assert [(m.index, m.role, m.content, m.task_id) for m in messages] == [
        (1, "user", "what is 2+2", "t1"),
        (2, "assistant", "4", "t1"),
        (3, "user", "and times 3", "t2"),
        (4, "tool", "12", "t2"),
        (5, "assistant", "12", "t2"),
    ]
    assert (messages[3].tool_name, messages[3].arguments) == ("calculator", '{"x": 1}')
    got = await store.get("acme", conversation_id)
    assert (got.message_count, got.turn_count) == (5, 2)
    assert got.total_tokens == sum(m.tokens for m in messages)


async def test_a_task_adds_its_turn_exactly_once(store: ConversationStore) -> None:
    conversation_id = await new(store)
    assert await store.append_turn("acme", conversation_id, turn("t1", "q", "a"))
    assert not await store.append_turn("acme", conversation_id, turn("t1", "q", "again"))
    results = await asyncio.gather(
        *(store.append_turn("acme", conversation_id, turn("t2", "q2", "a2")) for _ in range(4))
    )
    assert sorted(results) == [False, False, False, True]
    messages = await store.messages("acme", conversation_id, 0, 100)
    assert [m.content for m in messages] == ["q", "a", "q2", "a2"]


async def test_concurrent_turns_of_different_tasks_never_share_numbers(
    store: ConversationStore,
) -> None:
    conversation_id = await new(store)
    await asyncio.gather(
        *(store.append_turn("acme", conversation_id, turn(f"t{n}", f"q{n}", f"a{n}"))
          for n in range(6))
    )  # fmt: skip
    messages = await store.messages("acme", conversation_id, 0, 100)
    assert [m.index for m in messages] == list(range(1, 13))
    by_task: dict[str, list[str]] = {}
    for message in messages:
        by_task.setdefault(message.task_id, []).append(message.content)
    assert by_task == {f"t{n}": [f"q{n}", f"a{n}"] for n in range(6)}  # turns stay whole


async def test_messages_page_and_recent_gives_the_newest(store: ConversationStore) -> None:
    conversation_id = await new(store)
    for n in range(1, 8):
        await store.append_turn("acme", conversation_id, turn(f"t{n}", f"q{n}", f"a{n}"))
    first = await store.messages("acme", conversation_id, 0, 3)
    second = await store.messages("acme", conversation_id, 3, 3)
    assert [m.index for m in first + second] == [1, 2, 3, 4, 5, 6]
    last = await store.recent("acme", conversation_id, 0, 2)  # the newest two turns
    assert [m.content for m in last] == ["q6", "a6", "q7", "a7"]
    bounded = await store.recent("acme", conversation_id, 11, 5)  # after the summary's end
    assert [m.index for m in bounded] == [12, 13, 14]  # turn 6 cut by it, turn 7 whole
    assert await store.recent("acme", conversation_id, 0, 0) == []
    assert await store.recent("acme", conversation_id, 14, 3) == []


async def test_summaries_only_move_forward(store: ConversationStore) -> None:
    conversation_id = await new(store)
    assert await store.set_summary("acme", conversation_id, "first six", 6)
    assert not await store.set_summary("acme", conversation_id, "older", 4)
    assert not await store.set_summary("acme", conversation_id, "same", 6)
    assert await store.set_summary("acme", conversation_id, "first ten", 10)
    got = await store.get("acme", conversation_id)
    assert (got.summary, got.summarized_through) == ("first ten", 10)


async def test_another_tenants_conversation_is_not_found(store: ConversationStore) -> None:
    conversation_id = await new(store)
    await store.append_turn("acme", conversation_id, turn("t1", "secret", "answer"))
    with pytest.raises(ConversationNotFoundError):
        await store.get("globex", conversation_id)
    with pytest.raises(ConversationNotFoundError):
        await store.messages("globex", conversation_id, 0, 10)
    with pytest.raises(ConversationNotFoundError):
        await store.recent("globex", conversation_id, 0, 10)
    with pytest.raises(ConversationNotFoundError):
        await store.append_turn("globex", conversation_id, turn("t2", "x", "y"))
    with pytest.raises(ConversationNotFoundError):
        await store.set_summary("globex", conversation_id, "mine now", 2)
    assert not await store.delete("globex", conversation_id)
    assert await store.list(ConversationQuery("globex", "alice")) == Page(())
    got = await store.get("acme", conversation_id)
    assert (got.message_count, got.summary) == (2, "")


async def test_list_is_the_owners_newest_first_with_a_cursor(store: ConversationStore) -> None:
    start = utcnow()
    ids = []
    for n in range(5):
        conversation_id = new_conversation_id()
        moment = start + timedelta(seconds=n)
        await store.create(Conversation(conversation_id, "acme", "alice", created_at=moment))
        ids.append(conversation_id)
    await store.create(Conversation(new_conversation_id(), "acme", "bob"))
    await store.append_turn("acme", ids[4], turn("t1", "q", "a"))
    first = await store.list(ConversationQuery("acme", "alice", limit=2))
    assert [c.conversation_id for c in first.items] == [ids[4], ids[3]]
    assert first.items[0].message_count == 2
    assert first.items[1].message_count == 0
    last = first.items[-1]
    assert first.next == TimeCursor(last.created_at, last.conversation_id)
    rest = await store.list(ConversationQuery("acme", "alice", limit=10, after=first.next))
    assert [c.conversation_id for c in rest.items] == [ids[2], ids[1], ids[0]]
    assert rest.next is None


@pytest.mark.parametrize("size", [1, 3, 6, 7])
async def test_every_page_of_a_list_is_read_once_ties_by_id(
    store: ConversationStore, size: int
) -> None:
    start = utcnow()
    made = [  # pairs made at the same moment: the one of the larger id comes first
        Conversation(
            new_conversation_id(), "acme", "alice", created_at=start + timedelta(seconds=n // 2)
        )
        for n in range(6)
    ]
    for conversation in made:
        await store.create(conversation)
    await store.create(Conversation(new_conversation_id(), "acme", "bob", created_at=start))
    await store.create(Conversation(new_conversation_id(), "globex", "alice", created_at=start))

    def read(after: TimeCursor | None) -> Awaitable[Page[Conversation, TimeCursor]]:
        return store.list(ConversationQuery("acme", "alice", limit=size, after=after))

    pages = await every_page(read)
    assert [len(p) for p in pages] == page_sizes(6, size)
    newest_first = sorted(made, key=lambda c: (c.created_at, c.conversation_id), reverse=True)
    assert [c.conversation_id for p in pages for c in p] == [
        c.conversation_id for c in newest_first
    ]


async def test_delete_removes_the_conversation_and_its_turns(store: ConversationStore) -> None:
    conversation_id = await new(store)
    await store.append_turn("acme", conversation_id, turn("t1", "q", "a"))
    assert await store.delete("acme", conversation_id)
    assert not await store.delete("acme", conversation_id)
    with pytest.raises(ConversationNotFoundError):
        await store.get("acme", conversation_id)
    with pytest.raises(ConversationNotFoundError):
        await store.append_turn("acme", conversation_id, turn("t2", "q", "a"))


async def test_text_of_any_kind_round_trips(store: ConversationStore) -> None:
    conversation_id = await new(store)
    odd = 'nul \x00 surrogate \ud800 emoji 🙂 quote " backslash \\ {{x}}'
    await store.append_turn("acme", conversation_id, turn("t1", odd, odd))
    messages = await store.messages("acme", conversation_id, 0, 10)
    assert [m.content for m in messages] == [odd, odd]


async def test_a_snapshot_is_the_conversation_and_its_newest_turns_after_the_summary(
    store: ConversationStore,
) -> None:
    conversation_id = await new(store)
    for n in range(1, 6):
        await store.append_turn("acme", conversation_id, turn(f"t{n}", f"q{n}", f"a{n}"))
    await store.set_summary("acme", conversation_id, "first three", 5)
    conversation, messages = await store.snapshot("acme", conversation_id, 2)
    assert (conversation.message_count, conversation.summarized_through) == (10, 5)
    assert [m.index for m in messages] == [7, 8, 9, 10]
    _, few = await store.snapshot("acme", conversation_id, 9)
    assert [m.index for m in few] == [6, 7, 8, 9, 10]  # turn 3 cut by the summary
    with pytest.raises(ConversationNotFoundError):
        await store.snapshot("globex", conversation_id, 2)


async def test_recent_reads_further_back_a_page_at_a_time(store: ConversationStore) -> None:
    conversation_id = await new(store)
    for n in range(1, 8):
        await store.append_turn("acme", conversation_id, turn(f"t{n}", f"q{n}", f"a{n}"))
    newest = await store.recent("acme", conversation_id, 0, 2)
    assert [m.content for m in newest] == ["q6", "a6", "q7", "a7"]
    older = await store.recent("acme", conversation_id, 0, 2, before=newest[0].index)
    assert [m.content for m in older] == ["q4", "a4", "q5", "a5"]
    oldest = await store.recent("acme", conversation_id, 2, 9, before=older[0].index)
    assert [m.content for m in oldest] == ["q2", "a2", "q3", "a3"]  # after message 2


async def test_counts_move_with_each_turn_and_a_delete_takes_everything(
    store: ConversationStore,
) -> None:
    conversation_id = await new(store)
    for n in range(1, 4):
        await store.append_turn("acme", conversation_id, turn(f"t{n}", f"q{n}", f"a{n}"))
    assert not await store.append_turn("acme", conversation_id, turn("t2", "again", "again"))
    got = await store.get("acme", conversation_id)
    assert (got.turn_count, got.message_count) == (3, 6)
    assert got.total_tokens == sum(
        m.tokens for m in await store.messages("acme", conversation_id, 0, 99)
    )
    listed = await store.list(ConversationQuery("acme", got.created_by))
    assert [(c.turn_count, c.message_count) for c in listed.items] == [(3, 6)]
    assert not await store.delete("globex", conversation_id)
    assert await store.delete("acme", conversation_id)
    with pytest.raises(ConversationNotFoundError):
        await store.messages("acme", conversation_id, 0, 10)
    again = Conversation(conversation_id, "acme", "alice")  # the same id, afresh: nothing left
    await store.create(again)
    assert await store.messages("acme", conversation_id, 0, 10) == []
