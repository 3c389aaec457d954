"""One running task per conversation: what a new task does when another holds it, and
what happens when a step of that goes wrong."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from agent.llm.base import Message, ModelResponse
from agent.llm.testing import text
from agent.memory.busy import slot_key
from agent.memory.model import BusyPolicy
from tests.unit.agent.memory.chats import chat, is_summary_call
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
