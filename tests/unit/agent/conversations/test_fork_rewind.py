"""Forks and rewinds through the conversations service: what the next task of each is
sent, what is refused, and that a refusal changes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from agent.conversations.service import Point
from agent.llm.testing import text
from core.errors import ConversationBusyError, InvalidArgumentError, RoleRequiredError
from core.identity import Principal
from records.conversations.model import ConversationQuery
from records.conversations.policy import MemoryPolicy
from records.messages import Message, ModelResponse
from tests.unit.agent.conversations.chats import Chat, chat, is_summary_call, plain
from tests.unit.agent.conversations.test_busy import Held
from tests.unit.agent.runs import PRINCIPAL

LONG = "word " * 60


def sent(c: Chat) -> list[str]:
    """What the last task call was sent of earlier turns (no system text, not its own)."""
    call = [m for m in [x for x in c.calls if not is_summary_call(x)][-1] if m.role != "system"]
    return [m.content for m in call[:-1]]


async def twenty(tmp_path: Path, **kwargs: object) -> Chat:
    c = await chat(tmp_path, plain("ok"), **kwargs)  # type: ignore[arg-type]
    for n in range(1, 21):
        await c.add_turn(f"t{n}", f"q{n}", f"a{n}")
    return c


def on(c: Chat, conversation_id: str) -> Chat:
    return replace(c, conversation_id=conversation_id)


async def test_a_fork_s_next_task_is_sent_the_turns_up_to_its_point_only(tmp_path: Path) -> None:
    c = await twenty(tmp_path)
    service = c.memory.conversations
    before = await c.messages()
    fork = await service.fork(PRINCIPAL, c.conversation_id, Point(after_turn=5))
    assert (fork.forked_from, fork.forked_at_turn, fork.turn_count) == (c.conversation_id, 5, 5)
    assert (fork.title, fork.created_by) == ("test", PRINCIPAL.id)
    f = on(c, fork.conversation_id)
    await f.ask("next")
    assert sent(f) == [text for n in range(1, 6) for text in (f"q{n}", f"a{n}")]
    assert await c.messages() == before  # the original is unchanged
    assert [m.turn for m in await f.messages()][-2:] == [6, 6]
    by_task = await service.fork(PRINCIPAL, c.conversation_id, Point(after_task_id="t3"), "T")
    assert (by_task.forked_at_turn, by_task.title) == (3, "T")


async def test_a_fork_of_a_compacted_conversation_gets_the_summary_at_its_point(
    tmp_path: Path,
) -> None:
    policy = MemoryPolicy(budget_tokens=300, summary_tokens=60)
    made = iter(range(1, 100))

    def numbered(messages: Sequence[Message]) -> ModelResponse:
        return text(f"SUMMARY-{next(made)}" if is_summary_call(messages) else "ok")

    c = await chat(tmp_path, numbered, policy)
    for n in range(1, 21):
        await c.add_turn(f"t{n}", f"q{n} {LONG}", f"a{n} {LONG}")
    summaries = []
    for n in range(3):  # each task folds a chunk into the summary
        await c.ask(f"more {n}")
        summaries.append(await c.store.get(PRINCIPAL.tenant, c.conversation_id))
    first, last = summaries[0], summaries[-1]
    assert 0 < first.summarized_through < last.summarized_through
    turn = first.summarized_through // 2 + 1  # the first summary ends within this turn
    service = c.memory.conversations
    fork = await service.fork(PRINCIPAL, c.conversation_id, Point(after_turn=turn))
    assert (fork.summary, fork.summarized_through) == ("SUMMARY-1", first.summarized_through)
    assert last.summary == "SUMMARY-3"
    f = on(c, fork.conversation_id)
    calls = len(c.calls)
    await f.ask("on the fork")
    task_calls = [x for x in c.calls[calls:] if not is_summary_call(x)]
    summary_texts = [m.content for m in task_calls[-1] if "SUMMARY-" in m.content]
    assert len(summary_texts) == 1
    assert "SUMMARY-1" in summary_texts[0] or "SUMMARY-4" in summary_texts[0]
    assert "SUMMARY-3" not in summary_texts[0]  # never the original's later summary
    asked = [m.content for m in task_calls[-1] if m.role in ("user", "assistant")]
    assert not any(f"q{n} " in text for n in range(turn + 1, 21) for text in asked)
    assert (await c.store.get(PRINCIPAL.tenant, c.conversation_id)).summarized_through == (
        last.summarized_through
    )


async def test_a_rewind_hides_turns_from_the_next_task_and_the_summary(tmp_path: Path) -> None:
    c = await twenty(tmp_path)
    service = c.memory.conversations
    rewound = await service.rewind(PRINCIPAL, c.conversation_id, Point(after_turn=4))
    assert (rewound.rewound_turns, rewound.turn_count) == (16, 20)
    await c.ask("next")
    assert sent(c) == [text for n in range(1, 5) for text in (f"q{n}", f"a{n}")]
    marked = [(m.turn, m.rewound) for m in await c.messages()]
    assert marked[:8] == [(n, False) for n in range(1, 5) for _ in (0, 1)]
    assert marked[8:40] == [(n, True) for n in range(5, 21) for _ in (0, 1)]
    assert marked[40:] == [(21, False)] * 2
    everything = await service.rewind(PRINCIPAL, c.conversation_id, Point(after_turn=0))
    assert everything.rewound_turns == 21


async def test_a_compaction_after_a_rewind_never_folds_the_rewound_turns(tmp_path: Path) -> None:
    policy = MemoryPolicy(budget_tokens=300, summary_tokens=60)
    c = await chat(tmp_path, plain("ok"), policy)
    for n in range(1, 21):
        await c.add_turn(f"t{n}", f"q{n} {LONG}", f"a{n} {LONG}")
    await c.memory.conversations.rewind(PRINCIPAL, c.conversation_id, Point(after_turn=2))
    for n in range(21, 31):
        await c.add_turn(f"t{n}", f"q{n} {LONG}", f"a{n} {LONG}")
    for n in range(4):
        await c.ask(f"more {n}")
    folded = "\n".join(m.content for x in c.calls if is_summary_call(x) for m in x)
    assert "q1 " in folded
    assert not any(f'"q{n} ' in folded for n in range(3, 21))
    assert "q21 " in folded


async def test_fork_and_rewind_are_refused_while_a_task_runs(tmp_path: Path) -> None:
    held = Held()
    c = await chat(tmp_path, held)  # type: ignore[arg-type]
    await c.add_turn("t1", "q1", "a1")
    running = await c.start("now")
    await held.asked.wait()
    service = c.memory.conversations
    with pytest.raises(ConversationBusyError) as busy:
        await service.fork(PRINCIPAL, c.conversation_id, Point(after_turn=1))
    assert busy.value.task_id == running.task_id
    with pytest.raises(ConversationBusyError):
        await service.rewind(PRINCIPAL, c.conversation_id, Point(after_turn=0))
    assert (await c.store.get(PRINCIPAL.tenant, c.conversation_id)).rewound_turns == 0
    held.release.set()
    await c.ended(running.task_id)
    assert (await service.rewind(PRINCIPAL, c.conversation_id, Point(0))).rewound_turns == 2


@pytest.mark.parametrize(
    ("point", "field"),
    [
        (Point(), "after_turn"),
        (Point(after_turn=1, after_task_id="t1"), "after_turn"),
        (Point(after_turn=4), "after_turn"),
        (Point(after_task_id="t9"), "after_task_id"),
        (Point(after_task_id=""), "after_task_id"),
    ],
)
async def test_a_point_that_names_no_turn_is_invalid(
    tmp_path: Path, point: Point, field: str
) -> None:
    c = await chat(tmp_path, plain("ok"))
    for n in range(1, 4):
        await c.add_turn(f"t{n}", f"q{n}", f"a{n}")
    service = c.memory.conversations
    before = await c.messages()
    for act in (service.fork, service.rewind):
        with pytest.raises(InvalidArgumentError) as invalid:
            await act(PRINCIPAL, c.conversation_id, point)
        assert [v.field for v in invalid.value.violations] == [field]
    with pytest.raises(InvalidArgumentError, match="after_turn: is 0"):
        await service.fork(PRINCIPAL, c.conversation_id, Point(after_turn=0))
    with pytest.raises(InvalidArgumentError, match="title"):
        await service.fork(PRINCIPAL, c.conversation_id, Point(after_turn=1), "x" * 201)
    assert await c.messages() == before
    assert (await c.store.get(PRINCIPAL.tenant, c.conversation_id)).rewound_turns == 0
    listed = await service.list(ConversationQuery(PRINCIPAL.tenant, PRINCIPAL.id))
    assert len(listed.items) == 1  # no fork was made


async def test_another_principal_may_not_fork_or_rewind(tmp_path: Path) -> None:
    c = await chat(tmp_path, plain("ok"))
    await c.add_turn("t1", "q1", "a1")
    bob = Principal("bob", PRINCIPAL.tenant, ("analyst",))
    with pytest.raises(RoleRequiredError):
        await c.memory.conversations.fork(bob, c.conversation_id, Point(after_turn=1))
    with pytest.raises(RoleRequiredError):
        await c.memory.conversations.rewind(bob, c.conversation_id, Point(after_turn=0))
