"""The running summary: what a failing, costly or hostile summary call does to the task
that needed it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent.llm.base import Message, ModelError, ModelResponse
from agent.llm.testing import text
from agent.memory.policy import MemoryPolicy
from agent.tasks import StopReason, TaskStatus
from tests.unit.agent.memory.chats import chat, is_summary_call
from tests.unit.agent.runs import PRINCIPAL

LONG = "word " * 60


async def test_a_summary_call_that_spends_the_budget_never_becomes_the_answer(
    tmp_path: Path,
) -> None:
    def answer(messages: Sequence[Message]) -> ModelResponse:
        if is_summary_call(messages):
            return text("SUMMARY", prompt_tokens=5_000)
        return text("The answer.")

    c = await chat(tmp_path, answer, MemoryPolicy(budget_tokens=100, summary_tokens=40))
    for n in range(3):
        await c.add_turn(f"t{n}", f"question {n} {LONG}", f"answer {n} {LONG}")
    task = await c.ask("the new question", budget=1_000)
    assert "SUMMARY" not in (task.final_answer or "")
    assert task.stop_reason is StopReason.TOKEN_BUDGET
    conversation = await c.store.get(PRINCIPAL.tenant, c.conversation_id)
    assert conversation.summary == ""  # nothing stored from a call that broke the budget
    assert "SUMMARY" not in (await c.messages())[-1].content


async def test_a_failing_summary_costs_the_summary_not_the_task(tmp_path: Path) -> None:
    def answer(messages: Sequence[Message]) -> ModelResponse | Exception:
        if is_summary_call(messages):
            return ModelError("the endpoint is down")
        return text("The answer.")

    c = await chat(tmp_path, answer, MemoryPolicy(budget_tokens=100, summary_tokens=40))
    for n in range(3):
        await c.add_turn(f"t{n}", f"question {n} {LONG}", f"answer {n} {LONG}")
    task = await c.ask("the new question")
    assert (task.status, task.final_answer) == (TaskStatus.COMPLETED, "The answer.")
    assert c.calls[-1][-1] == Message("user", "the new question")
