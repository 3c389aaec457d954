"""ForkConversation and RewindConversation through the real server, client and fake
OpenAI server (which records every request): what a fork's and a rewound conversation's
next task is sent, that a fork copies no turn row, and that both wait for a running task."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from tests.integration.harness import Harness, assert_well_formed, harness
from tests.integration.test_conversations import _agents

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


def _sent(request: dict[str, Any]) -> list[str]:
    """The contents a model request carried after its system message."""
    return [m.get("content") or "" for m in request["messages"][1:]]


def _turn_rows(tmp_path: Path) -> int:
    with sqlite3.connect(tmp_path / "agentd.db") as db:
        return int(db.execute("SELECT count(*) FROM conversation_turns").fetchone()[0])


async def _filled(h: Harness, turns: int, **options: Any) -> str:
    cid = (await h.client.create_conversation("twenty")).conversation_id
    for n in range(1, turns + 1):
        events = await h.run(f"Question {n}.", mode=FC, conversation_id=cid, **options)
        assert_well_formed(events)
    return cid


async def test_a_fork_at_turn_5_of_20_sends_turns_1_to_5_and_copies_no_row(
    tmp_path: Path,
) -> None:
    replies: list[dict[str, Any]] = [
        {"text": "SUMMARY", "match": "You keep the running summary", "repeat": -1},
        {"text": "Fork answer.", "match": "On the fork."},
        {"text": "Rewound answer.", "match": "After the rewind."},
    ]
    replies += [{"text": f"Answer {n}.", "match": f"Question {n}."} for n in range(1, 21)]
    async with harness(tmp_path, replies) as h:
        cid = await _filled(h, 20)
        before = await h.client.get_conversation(cid, page_size=100)
        rows = await asyncio.to_thread(_turn_rows, tmp_path)
        assert rows == 20
        fork = await h.client.fork_conversation(cid, after_turn=5, title="what if")
        assert await asyncio.to_thread(_turn_rows, tmp_path) == rows  # no turn row copied
        assert (fork.forked_from, fork.forked_at_turn, fork.turn_count) == (cid, 5, 5)
        assert (fork.message_count, fork.title) == (10, "what if")

        assert_well_formed(
            await h.run("On the fork.", mode=FC, conversation_id=fork.conversation_id)
        )
        shared = [text for n in range(1, 6) for text in (f"Question {n}.", f"Answer {n}.")]
        assert _sent(h.llm.requests[-1]) == [*shared, "On the fork."]
        after = await h.client.get_conversation(cid, page_size=100)
        assert after == before  # the original is unchanged
        forked = await h.client.get_conversation(fork.conversation_id, page_size=100)
        assert [(m.index, m.turn) for m in forked.messages][-2:] == [(11, 6), (12, 6)]
        assert await asyncio.to_thread(_turn_rows, tmp_path) == rows + 1  # its own turn only

        task_3 = before.messages[4].task_id
        rewound = await h.client.rewind_conversation(cid, after_task_id=task_3)
        assert (rewound.rewound_turns, rewound.turn_count) == (17, 20)
        assert_well_formed(await h.run("After the rewind.", mode=FC, conversation_id=cid))
        assert _sent(h.llm.requests[-1]) == [*shared[:6], "After the rewind."]
        got = await h.client.get_conversation(cid, page_size=100)
        assert len(got.messages) == 42  # the rewound turns are still there, marked
        assert [(m.turn, m.rewound) for m in got.messages[4:8]] == [
            (3, False), (3, False), (4, True), (4, True),
        ]  # fmt: skip
        assert all(m.rewound for m in got.messages[6:40])
        assert [(m.turn, m.rewound) for m in got.messages[40:]] == [(21, False)] * 2


CHAT = """\
id: chat
instructions: You are the support assistant.
model: gpt-4o-mini
memory:
  budget_tokens: 400
  max_messages: 20
  summary_tokens: 100
  compaction: summarize
"""
FILLER = "Here is what I found about that item: it is in stock, ships in two days. " * 3


async def test_a_fork_of_a_compacted_conversation_is_sent_the_summary_at_its_point(
    tmp_path: Path,
) -> None:
    replies: list[dict[str, Any]] = [
        {"text": f"SUMMARY-{n}", "match": "You keep the running summary"} for n in range(1, 40)
    ]
    replies.append({"text": FILLER.strip(), "match": "You are the support assistant", "repeat": -1})
    folder = _agents(tmp_path, chat=CHAT)
    async with harness(tmp_path, replies, agents_dir=folder) as h:
        cid = (await h.client.create_conversation("long")).conversation_id
        throughs = []
        for n in range(1, 31):
            events = await h.run(f"Question {n}: {FILLER}", agent="chat", mode=FC,
                                 conversation_id=cid)  # fmt: skip
            throughs += [e.history_compacted.summarized_through for e in events
                         if e.WhichOneof("payload") == "history_compacted"]  # fmt: skip
        assert len(throughs) >= 2
        original = (await h.client.get_conversation(cid, page_size=1)).conversation
        assert original.summary == f"SUMMARY-{len(throughs)}"
        turn = (throughs[0] + 1) // 2  # each turn is two messages
        assert 2 * turn < throughs[1]
        fork = await h.client.fork_conversation(cid, after_turn=turn)
        assert (fork.summary, fork.summarized_through) == ("SUMMARY-1", throughs[0])

        await h.run("On the fork.", agent="chat", mode=FC, conversation_id=fork.conversation_id)
        task = [r for r in h.llm.requests if "support assistant" in str(r["messages"])][-1]
        sent = "\n".join(_sent(task))
        later = [f"SUMMARY-{n}" for n in range(2, len(throughs) + 1)]
        assert "SUMMARY-1" in sent or f"SUMMARY-{len(throughs) + 1}" in sent
        assert not any(f"{s}\n" in sent for s in later)  # never the original's later one
        assert f"Question {turn + 1}:" not in sent
        assert (await h.client.get_conversation(cid, page_size=1)).conversation == original


async def test_fork_and_rewind_are_refused_while_a_task_runs(tmp_path: Path) -> None:
    replies = [{"text": "First."}, {"text": "Held.", "hold": "held", "match": "hold me"}]
    async with harness(tmp_path, replies) as h:
        cid = await _filled(h, 1)
        running = await h.client.start_task("hold me", mode=FC, conversation_id=cid)
        deadline = asyncio.get_running_loop().time() + 10
        while not h.llm.held("held"):
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.02)
        with pytest.raises(client_errors.ConversationBusyError) as busy:
            await h.client.fork_conversation(cid, after_turn=1)
        assert busy.value.code.name == "FAILED_PRECONDITION"
        assert busy.value.metadata["task_id"] == running.task_id
        with pytest.raises(client_errors.ConversationBusyError):
            await h.client.rewind_conversation(cid, after_turn=0)
        listed = await h.client.list_conversations()
        assert len(listed.conversations) == 1  # no fork was made
        h.llm.release("held")
        assert_well_formed([e async for e in h.client.stream_task_events(running.task_id)])
        got = await h.client.rewind_conversation(cid, after_turn=0)
        assert got.rewound_turns == 2
        with pytest.raises(client_errors.InvalidArgumentError):
            await h.client.fork_conversation(cid, after_turn=3)
