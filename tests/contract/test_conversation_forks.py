"""Forks and rewinds of the conversation store, on memory, SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import Table, func, select

from core.errors import ConversationNotFoundError, InvalidArgumentError
from records.conversations.lineage import MAX_HIDDEN_RANGES, MAX_LINEAGE
from records.conversations.model import Conversation, ConversationQuery, new_conversation_id
from stores.conversations.base import ConversationStore
from stores.conversations.sql import SqlConversationStore
from stores.sql.schema import conversation_summaries, conversation_turns
from tests.contract.test_conversations import new, store, turn

__all__ = ["store"]


async def filled(store: ConversationStore, turns: int, prefix: str = "t") -> str:
    conversation_id = await new(store)
    for n in range(1, turns + 1):
        await store.append_turn("acme", conversation_id, turn(f"{prefix}{n}", f"q{n}", f"a{n}"))
    return conversation_id


def blank(owner: str = "alice", title: str = "Fork") -> Conversation:
    return Conversation(new_conversation_id(), "acme", owner, title=title)


async def stored_rows(store: ConversationStore, table: Table = conversation_turns) -> int | None:
    """Rows of `table` in the database (None for the in-memory store)."""
    if not isinstance(store, SqlConversationStore):
        return None
    async with store._engine.connect() as connection:
        counted = await connection.execute(select(func.count()).select_from(table))
        return int(counted.scalar_one())


async def contents(store: ConversationStore, conversation_id: str) -> list[str]:
    _, recent = await store.snapshot("acme", conversation_id, 100)
    return [m.content for m in recent]


async def test_a_fork_shares_the_turns_up_to_its_point_without_copying_them(
    store: ConversationStore,
) -> None:
    original = await filled(store, 20)
    before = await store.get("acme", original)
    rows = await stored_rows(store)
    fork = await store.fork("acme", original, 5, blank())
    assert await stored_rows(store) == rows  # no turn row copied
    assert (fork.turn_count, fork.message_count) == (5, 10)
    assert fork.total_tokens == sum(len(f"q{n}".split()) + 1 for n in range(1, 6))
    assert (fork.forked_from, fork.forked_at_turn, fork.title) == (original, 5, "Fork")
    assert await contents(store, fork.conversation_id) == [
        text for n in range(1, 6) for text in (f"q{n}", f"a{n}")
    ]
    page = await store.messages("acme", fork.conversation_id, 0, 100)
    assert [(m.index, m.turn) for m in page][-2:] == [(9, 5), (10, 5)]
    assert await store.get("acme", original) == before
    assert len(await store.messages("acme", original, 0, 100)) == 40


async def test_a_fork_numbers_its_own_turns_after_its_point(store: ConversationStore) -> None:
    original = await filled(store, 8)
    fork = await store.fork("acme", original, 3, blank())
    assert await store.append_turn("acme", fork.conversation_id, turn("f1", "fq", "fa"))
    got = await store.get("acme", fork.conversation_id)
    assert (got.turn_count, got.message_count) == (4, 8)
    tail = await store.messages("acme", fork.conversation_id, 6, 10)
    assert [(m.index, m.turn, m.content) for m in tail] == [(7, 4, "fq"), (8, 4, "fa")]
    assert await store.recent("acme", fork.conversation_id, 0, 2) == (
        await store.messages("acme", fork.conversation_id, 4, 10)
    )
    assert (await store.get("acme", original)).turn_count == 8
    assert await store.turn_of("acme", fork.conversation_id, "t2") == 2
    assert await store.turn_of("acme", fork.conversation_id, "f1") == 4
    assert await store.turn_of("acme", fork.conversation_id, "t5") == 0
    assert await store.turn_of("acme", original, "f1") == 0


async def test_a_fork_of_a_fork_reads_each_part_from_where_it_is_stored(
    store: ConversationStore,
) -> None:
    root = await filled(store, 6, "r")
    child = await store.fork("acme", root, 4, blank())
    for n in (1, 2, 3):
        await store.append_turn("acme", child.conversation_id, turn(f"c{n}", f"cq{n}", f"ca{n}"))
    grandchild = await store.fork("acme", child.conversation_id, 6, blank())
    assert await contents(store, grandchild.conversation_id) == [
        *(text for n in range(1, 5) for text in (f"q{n}", f"a{n}")),
        *("cq1", "ca1", "cq2", "ca2"),
    ]
    early = await store.fork("acme", grandchild.conversation_id, 2, blank())
    assert await contents(store, early.conversation_id) == ["q1", "a1", "q2", "a2"]
    page = await store.messages("acme", grandchild.conversation_id, 3, 4)
    assert [m.index for m in page] == [4, 5, 6, 7]


async def test_a_fork_starts_from_the_summary_kept_at_or_before_its_point(
    store: ConversationStore,
) -> None:
    original = await filled(store, 10)
    assert await store.set_summary("acme", original, "through turn 2", 4)
    assert await store.set_summary("acme", original, "through turn 7", 14)
    fork = await store.fork("acme", original, 5, blank())
    assert (fork.summary, fork.summarized_through) == ("through turn 2", 4)
    assert await contents(store, fork.conversation_id) == ["q3", "a3", "q4", "a4", "q5", "a5"]
    again = await store.fork("acme", fork.conversation_id, 4, blank())
    assert (again.summary, again.summarized_through) == ("through turn 2", 4)
    late = await store.fork("acme", original, 9, blank())
    assert (late.summary, late.summarized_through) == ("through turn 7", 14)
    none = await store.fork("acme", original, 1, blank())
    assert (none.summary, none.summarized_through) == ("", 0)
    assert (await store.get("acme", original)).summary == "through turn 7"


async def test_a_rewind_hides_later_turns_from_tasks_but_not_from_the_history(
    store: ConversationStore,
) -> None:
    conversation_id = await filled(store, 6)
    assert await store.set_summary("acme", conversation_id, "through turn 1", 2)
    assert await store.set_summary("acme", conversation_id, "through turn 4", 8)
    rewound = await store.rewind("acme", conversation_id, 3)
    assert (rewound.turn_count, rewound.message_count, rewound.rewound_turns) == (6, 12, 3)
    assert (rewound.summary, rewound.summarized_through) == ("through turn 1", 2)
    assert await contents(store, conversation_id) == ["q2", "a2", "q3", "a3"]
    page = await store.messages("acme", conversation_id, 0, 100)
    assert [(m.turn, m.rewound) for m in page[4:8]] == [(3, False)] * 2 + [(4, True)] * 2
    assert len(page) == 12
    await store.append_turn("acme", conversation_id, turn("t7", "q7", "a7"))
    assert await contents(store, conversation_id) == ["q2", "a2", "q3", "a3", "q7", "a7"]
    assert (await store.get("acme", conversation_id)).turn_count == 7
    # the summary past the point went: a later one moves forward from the one kept
    assert await store.set_summary("acme", conversation_id, "turns 1-3 and 7", 14)
    fork = await store.fork("acme", conversation_id, 5, blank())
    assert (fork.summary, fork.summarized_through, fork.rewound_turns) == ("through turn 1", 2, 2)
    assert await contents(store, fork.conversation_id) == ["q2", "a2", "q3", "a3"]


async def test_a_rewind_to_zero_takes_every_turn_back(store: ConversationStore) -> None:
    conversation_id = await filled(store, 3)
    await store.set_summary("acme", conversation_id, "s", 2)
    got = await store.rewind("acme", conversation_id, 0)
    assert (got.rewound_turns, got.summary, got.summarized_through) == (3, "", 0)
    assert await contents(store, conversation_id) == []
    assert await store.recent("acme", conversation_id, 0, 10) == []
    assert all(m.rewound for m in await store.messages("acme", conversation_id, 0, 10))
    assert (await store.rewind("acme", conversation_id, 3)).rewound_turns == 3  # no change


async def test_rewinds_merge_and_are_bounded(store: ConversationStore) -> None:
    conversation_id = await filled(store, 4)
    await store.rewind("acme", conversation_id, 2)
    await store.append_turn("acme", conversation_id, turn("t5", "q5", "a5"))
    got = await store.rewind("acme", conversation_id, 1)
    assert got.rewound_turns == 4
    assert await contents(store, conversation_id) == ["q1", "a1"]
    for n in range(MAX_HIDDEN_RANGES - 1):  # [2, 5] and 31 more
        for kind in "xy":
            await store.append_turn("acme", conversation_id, turn(f"{kind}{n}", "q", "a"))
        count = (await store.get("acme", conversation_id)).turn_count
        await store.rewind("acme", conversation_id, count - 1)  # a range of its own
    for kind in "yz":
        await store.append_turn("acme", conversation_id, turn(kind, "q", "a"))
    before = await store.messages("acme", conversation_id, 0, 1000)
    count = (await store.get("acme", conversation_id)).turn_count
    with pytest.raises(InvalidArgumentError):
        await store.rewind("acme", conversation_id, count - 1)
    assert await store.messages("acme", conversation_id, 0, 1000) == before


async def test_points_out_of_range_and_other_tenants_change_nothing(
    store: ConversationStore,
) -> None:
    conversation_id = await filled(store, 3)
    rows = await stored_rows(store)
    for point in (0, 4):
        with pytest.raises(ValueError, match="after_turn"):
            await store.fork("acme", conversation_id, point, blank())
    with pytest.raises(ValueError, match="after_turn"):
        await store.rewind("acme", conversation_id, 4)
    with pytest.raises(ConversationNotFoundError):
        await store.fork("globex", conversation_id, 1, blank())
    with pytest.raises(ConversationNotFoundError):
        await store.rewind("globex", conversation_id, 1)
    assert await stored_rows(store) == rows
    assert (await store.get("acme", conversation_id)).rewound_turns == 0


async def test_forks_are_bounded_in_depth(store: ConversationStore) -> None:
    current = await filled(store, 1)
    for depth in range(MAX_LINEAGE):
        fork = await store.fork("acme", current, depth + 1, blank())
        current = fork.conversation_id
        await store.append_turn("acme", current, turn(f"d{depth}", "q", "a"))
    with pytest.raises(InvalidArgumentError, match="fork"):
        await store.fork("acme", current, MAX_LINEAGE + 1, blank())
    assert len(await contents(store, current)) == 2 * (MAX_LINEAGE + 1)


async def test_a_deleted_original_stays_readable_through_its_forks_until_they_go(
    store: ConversationStore,
) -> None:
    original = await filled(store, 6)
    await store.set_summary("acme", original, "s", 2)
    child = await store.fork("acme", original, 4, blank())
    grandchild = await store.fork("acme", child.conversation_id, 3, blank())
    assert await store.delete("acme", original)
    assert not await store.delete("acme", original)
    with pytest.raises(ConversationNotFoundError):
        await store.get("acme", original)
    with pytest.raises(ConversationNotFoundError):
        await store.fork("acme", original, 1, blank())
    listed = await store.list(ConversationQuery("acme", "alice"))
    assert original not in [c.conversation_id for c in listed.items]
    assert len(await contents(store, child.conversation_id)) == 6  # turns 2-4 after "s"
    assert await store.delete("acme", child.conversation_id)
    assert await contents(store, grandchild.conversation_id) == ["q2", "a2", "q3", "a3"]
    assert await stored_rows(store) in (None, 6)
    assert await store.delete("acme", grandchild.conversation_id)
    assert await stored_rows(store) in (None, 0)
    assert await stored_rows(store, conversation_summaries) in (None, 0)
