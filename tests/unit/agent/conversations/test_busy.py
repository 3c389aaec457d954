"""One running task per conversation: what a new task does when another holds it, and
what happens when a step of that goes wrong."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agent.conversations.busy import slot_key, stale_after
from agent.llm.base import ModelError
from agent.llm.testing import text
from agent.running.lifecycle import PERSIST_DELAYS
from core.errors import ConversationBusyError
from records import events as ev
from records.conversations.model import BusyPolicy
from records.messages import Message, ModelResponse
from records.paging import PositionCursor
from records.tasks import Task, TaskStatus, new_task_id
from tests.unit.agent.conversations.chats import Chat, chat, is_summary_call
from tests.unit.agent.runs import PRINCIPAL


class Held:
    """A model whose task calls wait until released (no timing involved)."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.asked = asyncio.Event()

    async def __call__(self, messages: Sequence[Message]) -> ModelResponse:
        if is_summary_call(messages):
            return text("SUMMARY")
        self.asked.set()
        await self.release.wait()
        return text(f"answer to {messages[-1].content}")


async def test_a_failed_interrupt_leaves_no_task_in_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = Held()
    c = await chat(tmp_path, held)  # type: ignore[arg-type]
    first = await c.start("first")
    await held.asked.wait()

    async def broken(tenant: str, task_id: str, reason: str) -> None:
        raise RuntimeError("the task store is down")

    monkeypatch.setattr(c.engine, "cancel", broken)
    monkeypatch.setattr(c.engine, "cancel_quietly", broken)
    with pytest.raises(RuntimeError):
        await c.start("second", BusyPolicy.INTERRUPT)
    slots = c.memory.conversations.gate._slots
    assert await slots.waiting(slot_key(PRINCIPAL.tenant, c.conversation_id)) == []
    held.release.set()
    await c.ended(first.task_id)
    third = await c.ask("third")  # free: nothing phantom holds or waits for it
    assert third.final_answer == "answer to third"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


async def _crashed_holder(tmp_path: Path, clock: Clock) -> tuple[Chat, Task]:
    """A conversation whose holder ended (stored COMPLETED with its answer) but whose
    process died before it added its turn and let go."""
    held = Held()
    held.release.set()
    c = await chat(tmp_path, held, stale_seconds=40.0, clock=clock)  # type: ignore[arg-type]
    first = Task(
        task_id=new_task_id(),
        tenant=PRINCIPAL.tenant,
        owner=PRINCIPAL.id,
        goal="first",
        status=TaskStatus.COMPLETED,
        final_answer="the first answer",
        conversation_id=c.conversation_id,
    )
    await c.env.store.create(first)
    slots = c.memory.conversations.gate._slots
    assert await slots.claim(slot_key(PRINCIPAL.tenant, c.conversation_id), first.task_id) == ""
    return c, first


async def test_a_stale_holder_is_finished_with_its_turn_by_the_task_it_blocks(
    tmp_path: Path,
) -> None:
    clock = Clock()
    c, first = await _crashed_holder(tmp_path, clock)
    with pytest.raises(ConversationBusyError):  # just ended: its process may still add it
        await c.start("second")
    clock.now += 39.0
    with pytest.raises(ConversationBusyError):
        await c.start("second")
    clock.now += 2.0  # past the stale time: the blocker is finished for it
    second = await c.ask("second")
    assert second.final_answer == "answer to second"
    stored = [(m.task_id, m.role, m.content) for m in await c.messages()]
    assert stored[:2] == [(first.task_id, "user", "first"),
                          (first.task_id, "assistant", "the first answer")]  # fmt: skip
    assert c.calls[-1][1:3] == [Message("user", "first"), Message("assistant", "the first answer")]


async def test_a_turn_that_cannot_be_added_keeps_the_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    c, first = await _crashed_holder(tmp_path, clock)

    async def down(*args: object) -> bool:
        raise RuntimeError("the database refuses")

    monkeypatch.setattr(c.store, "append_turn", down)
    assert not await c.memory.finish(first)
    gate = c.memory.conversations.gate
    assert await gate.running(PRINCIPAL.tenant, c.conversation_id) == first.task_id
    with pytest.raises(ConversationBusyError):
        await c.start("second")
    clock.now += 100.0
    with pytest.raises(ConversationBusyError):  # stale, but its turn cannot be dropped either
        await c.start("second")
    monkeypatch.undo()
    second = await c.ask("second")
    assert [m.task_id for m in await c.messages()][:2] == [first.task_id, first.task_id]
    assert second.final_answer == "answer to second"


def test_the_stale_time_follows_the_lease_settings() -> None:
    assert stale_after(30.0, 1.0) > 30.0 + 1.0 + sum(PERSIST_DELAYS)
    assert stale_after(120.0, 5.0) - stale_after(30.0, 1.0) == 94.0


async def test_a_queued_task_cancelled_before_it_runs_adds_no_turn(tmp_path: Path) -> None:
    held = Held()
    c = await chat(tmp_path, held)  # type: ignore[arg-type]
    first = await c.start("first")
    await held.asked.wait()
    queued = await c.start("queued", BusyPolicy.ENQUEUE)
    await c.engine.cancel(PRINCIPAL.tenant, queued.task_id, "changed my mind")
    assert (await c.ended(queued.task_id)).status is TaskStatus.CANCELLED
    held.release.set()
    await c.ended(first.task_id)
    third = await c.ask("third")
    stored = [(m.task_id, m.role) for m in await c.messages()]
    assert stored == [
        (first.task_id, "user"), (first.task_id, "assistant"),
        (third.task_id, "user"), (third.task_id, "assistant"),
    ]  # fmt: skip


async def _running_elsewhere(c: Chat, question: str) -> Task:
    """A task stored RUNNING and holding the conversation, with no coroutine in this
    process (it runs, or ran, on another replica)."""
    task = Task(
        task_id=new_task_id(),
        tenant=PRINCIPAL.tenant,
        owner=PRINCIPAL.id,
        goal=question,
        status=TaskStatus.RUNNING,
        conversation_id=c.conversation_id,
    )
    await c.env.store.create(task)
    key = slot_key(PRINCIPAL.tenant, c.conversation_id)
    await c.memory.conversations.gate._slots.claim(key, task.task_id)
    return task


async def test_cancelling_a_task_running_on_another_replica_stores_its_turn_and_frees_it(
    tmp_path: Path,
) -> None:
    held = Held()
    held.release.set()
    c = await chat(tmp_path, held)  # type: ignore[arg-type]
    elsewhere = await _running_elsewhere(c, "the question on the other replica")
    await c.engine.cancel(PRINCIPAL.tenant, elsewhere.task_id, "stop")
    # By the time the terminal event is written (the cancel returns after it), the turn is
    # stored and the conversation free.
    assert await c.memory.conversations.gate.running(PRINCIPAL.tenant, c.conversation_id) == ""
    stored = await c.messages()
    assert [(m.task_id, m.role) for m in stored] == [
        (elsewhere.task_id, "user"), (elsewhere.task_id, "assistant")
    ]  # fmt: skip
    assert stored[1].content.startswith("(No answer: the task ended cancelled: stop")


async def test_the_history_is_read_a_page_at_a_time_and_only_as_far_as_it_fits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from records.conversations.policy import MemoryPolicy
    from tests.unit.agent.conversations.chats import plain

    pages: list[int] = []
    for budget, expected_pages in ((100_000, 1), (100, 0)):
        policy = MemoryPolicy(budget_tokens=budget, max_messages=60, compaction="drop")
        c = await chat(tmp_path, plain("ok"), policy)
        for n in range(40):
            await c.add_turn(f"t{n}", f"q{n}", f"a{n}")
        pages.clear()
        recent = c.store.recent

        async def counted(*args: object, recent: Any = recent, **kwargs: object) -> object:
            if "before" in kwargs:  # a page further back (the snapshot reads the first)
                pages.append(1)
            return await recent(*args, **kwargs)

        monkeypatch.setattr(c.store, "recent", counted)
        await c.ask("now")
        assert len(pages) == expected_pages
        sent = c.calls[-1][1:-1]
        if budget == 100_000:  # the newest 30 turns (60 messages): two pages of turns
            assert [m.content for m in sent[:2]] == ["q10", "a10"]
            assert len(sent) == 60
        else:
            assert 0 < len(sent) < 32  # the budget binds within the first page


async def test_a_conversation_s_line_and_its_turns_are_bounded(tmp_path: Path) -> None:
    from core.errors import ConversationLineFullError, InvalidArgumentError

    held = Held()
    c = await chat(tmp_path, held)  # type: ignore[arg-type]
    c.memory.conversations.gate._max_waiting = 2
    first = await c.start("first")
    await held.asked.wait()
    waiting = [await c.start(f"q{n}", BusyPolicy.ENQUEUE) for n in range(2)]
    with pytest.raises(ConversationLineFullError) as full:
        await c.start("one too many", BusyPolicy.ENQUEUE)
    assert full.value.reason == "CONVERSATION_BUSY"
    assert "2 waiting" in full.value.message
    held.release.set()
    for task in (first, *waiting):
        await c.ended(task.task_id)
    assert len(await c.messages()) == 6  # the refused one left nothing
    c.memory.conversations._max_turns = 3
    with pytest.raises(InvalidArgumentError) as no_room:
        await c.start("a fourth turn")
    assert [v.field for v in no_room.value.violations] == ["conversation_id"]


class Failing(Held):
    """A held model whose first task call fails once released."""

    async def __call__(self, messages: Sequence[Message]) -> ModelResponse:
        if messages[-1].content == "first":
            self.asked.set()
            await self.release.wait()
            raise ModelError("the endpoint broke")
        return text(f"answer to {messages[-1].content}")


@pytest.mark.parametrize("ending", ["failed", "cancelled"])
async def test_enqueue_runs_after_a_predecessor_that_failed_or_was_cancelled(
    tmp_path: Path, ending: str
) -> None:
    model = Failing()
    c = await chat(tmp_path, model)  # type: ignore[arg-type]
    first = await c.start("first")
    await model.asked.wait()
    second = await c.start("second", BusyPolicy.ENQUEUE)
    if ending == "failed":
        model.release.set()
    else:
        await c.engine.cancel(PRINCIPAL.tenant, first.task_id, "stop")
    ended = await c.ended(first.task_id)
    assert ended.status is (TaskStatus.FAILED if ending == "failed" else TaskStatus.CANCELLED)
    assert (await c.ended(second.task_id)).final_answer == "answer to second"
    stored = [(m.task_id, m.role) for m in await c.messages()]
    assert stored == [(first.task_id, "user"), (first.task_id, "assistant"),
                      (second.task_id, "user"), (second.task_id, "assistant")]  # fmt: skip
    assert c.calls[-1][1].content == "first"  # the second saw the first's turn
    assert c.calls[-1][2].content.startswith(f"(No answer: the task ended {ending}")


async def test_an_interrupt_racing_the_running_task_s_end_still_runs_after_its_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = Held()
    c = await chat(tmp_path, held)  # type: ignore[arg-type]
    first = await c.start("first")
    await held.asked.wait()
    cancel = c.engine.cancel

    async def ended_first(tenant: str, task_id: str, reason: str) -> Any:
        held.release.set()  # the running task ends just as the interrupt arrives
        await c.ended(first.task_id)
        return await cancel(tenant, task_id, reason)  # TaskAlreadyTerminalError: ignored

    monkeypatch.setattr(c.engine, "cancel", ended_first)
    second = await c.start("second", BusyPolicy.INTERRUPT)
    assert (await c.ended(second.task_id)).final_answer == "answer to second"
    assert (await c.env.store.get(PRINCIPAL.tenant, first.task_id)).status is TaskStatus.COMPLETED
    assert [m.content for m in await c.messages()] == [
        "first", "answer to first", "second", "answer to second"
    ]  # fmt: skip


async def test_a_page_says_more_follow_from_what_it_read_not_from_a_count(
    tmp_path: Path,
) -> None:
    from agent.conversations.service import MAX_PAGE_BYTES

    c = await chat(tmp_path, Held())  # type: ignore[arg-type]
    for n in range(3):
        await c.add_turn(f"t{n}", f"q{n}", f"a{n}")
    service = c.memory.conversations
    _, page, _ = await service.page(PRINCIPAL, c.conversation_id, None, 6)
    assert (len(page.items), page.next) == (6, None)
    _, page, _ = await service.page(PRINCIPAL, c.conversation_id, None, 5)
    assert (len(page.items), page.next) == (5, PositionCursor(5))
    big = "x" * (MAX_PAGE_BYTES // 2)
    await c.add_turn("t9", big, big)  # two messages of half a page each
    _, page, _ = await service.page(PRINCIPAL, c.conversation_id, PositionCursor(6), 200)
    # at least one, then the size binds
    assert ([m.index for m in page.items], page.next) == ([7], PositionCursor(7))


async def test_only_the_first_in_line_watches_the_running_task() -> None:
    from agent.conversations.busy import BusyGate
    from stores.conversation_slots.memory import InMemoryConversationSlots
    from stores.tasks.memory import InMemoryTaskStore

    class Watched(InMemoryTaskStore):
        def __init__(self) -> None:
            super().__init__()
            self.asked: list[str] = []

        async def get(self, tenant: str, task_id: str) -> Task:
            self.asked.append(task_id)
            return await super().get(tenant, task_id)

    tasks = Watched()
    ids = {}
    for name in ("running", "first", "second"):
        task = Task(task_id=new_task_id(), tenant="acme", owner="alice", goal=name,
                    status=TaskStatus.RUNNING if name == "running" else TaskStatus.PENDING,
                    conversation_id="conv_" + "0" * 24)  # fmt: skip
        await tasks.create(task)
        ids[name] = task
    slots = InMemoryConversationSlots()
    key = slot_key("acme", "conv_" + "0" * 24)
    assert await slots.claim(key, ids["running"].task_id) == ""
    for name in ("first", "second"):
        assert await slots.enqueue(key, ids[name].task_id)
    gate = BusyGate(slots, tasks)
    for _ in range(5):  # a few looks (a parked task's, woken or polled): never its turn
        assert not await gate.try_turn(ids["second"])
    assert ids["running"].task_id not in tasks.asked  # the running task: the first's to watch
    assert tasks.asked  # it did look at the one ahead of it (a dead one would be let go)


async def test_an_orphan_failed_on_takeover_keeps_its_dead_process_s_tool_calls_in_its_turn(
    tmp_path: Path,
) -> None:
    """A task whose process died, with no checkpoint to resume it from, is failed by the
    replica that claims it; its turn is built from its log, which holds the tool calls the
    dead process made (the run that fails it made none)."""
    held = Held()
    c = await chat(tmp_path, held)  # type: ignore[arg-type]
    orphan = await _running_elsewhere(c, "what is 6*7?")  # its process is gone
    arguments = {"expression": "6*7"}
    for payload in (
        ev.ToolCallStarted("call_1", "step_1", "calculator", arguments),
        ev.ToolCallFinished("call_1", "calculator", 42, None, 0.01, "42"),
    ):
        await c.env.store.append_event(orphan.task_id, orphan.trace_id, payload)
    takeover = c.engine._takeover
    assert takeover is not None
    await takeover.resume(PRINCIPAL.tenant, orphan.task_id, c.engine._admission.admit("t"))
    failed = await c.env.store.get(PRINCIPAL.tenant, orphan.task_id)
    assert failed.status is TaskStatus.FAILED
    stored = await c.messages()
    assert [(m.role, m.tool_name) for m in stored] == [
        ("user", ""), ("tool", "calculator"), ("assistant", "")
    ]  # fmt: skip
    assert stored[1].content == "42"
