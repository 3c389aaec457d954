"""A task's own spend limit (`TaskRequest.spend_limit`): refused a model call once its
spend reached the limit, stopped after the call that took it there (SPEND_LIMIT, the
detail naming the limit and the currency); a model without a price never reaches it; a
stored task keeps its limit (its children their shares), one without is stored as before."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

from agent.limits import LimitReached
from agent.llm.testing import FunctionModel, text, tool_calls
from agent.running import model_calls
from agent.running.state import RunBounds
from agent.spending.prices import PriceBook
from records import serialization
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse
from records.requests import TaskRequest
from records.tasks import ChildSummary, StopReason, Task, TaskStatus, TokenUsage
from records.usage.prices import Price
from tests.unit.agent.test_spending import CALLER, ended, engine_of, priced_provider

MICRO_PER_TOKEN = Price(input=1_000_000, output=1_000_000)
"""One micro-unit a token: a call of 1,000 prompt tokens costs 1,000."""


def calculating(calls: list[int]) -> FunctionModel:
    """A model that calls the calculator on every turn (never answers), 1,000 tokens each."""

    def reply(*_: Any) -> ModelResponse:
        calls.append(1)
        call = ("calculator", {"expression": f"1+{len(calls)}"})
        return tool_calls(call, prompt_tokens=1_000, completion_tokens=0)

    model = FunctionModel(reply)
    model.name = "gpt-x"
    return model


async def test_the_call_that_reaches_the_limit_is_the_last(tmp_path: Path) -> None:
    calls: list[int] = []
    model = calculating(calls)
    providers = {"default": priced_provider("default", model, MICRO_PER_TOKEN)}
    engine, _, _, meter = engine_of(model, tmp_path, providers)
    meter.prices.currency = "EUR"
    request = TaskRequest("add", mode=ExecutionMode.FUNCTION_CALLING, spend_limit=1_500)

    task = await engine.start(request, CALLER)
    await ended(engine, task.task_id)

    done = await engine.find("acme", task.task_id)
    assert len(calls) == 2  # 1,000 spent is under the limit; 2,000 went past it
    assert done.spend_limit == 1_500
    assert done.usage.cost_micros == 2_000
    assert done.stop_reason is StopReason.SPEND_LIMIT
    assert done.stop_detail == (
        "the spend limit of 1500 micro-units of EUR is reached (2000 spent)"
    )


async def test_a_model_without_a_price_never_reaches_it(tmp_path: Path) -> None:
    replies = iter([tool_calls(("calculator", {"expression": "1+1"})), text("two")])
    engine, _, _, _ = engine_of(FunctionModel(lambda *_: next(replies)), tmp_path)
    request = TaskRequest("add", mode=ExecutionMode.FUNCTION_CALLING, spend_limit=1)

    task = await engine.start(request, CALLER)
    await ended(engine, task.task_id)

    done = await engine.find("acme", task.task_id)
    assert (done.status, done.stop_reason, done.final_answer) == (
        TaskStatus.COMPLETED,
        StopReason.FINAL_ANSWER,
        "two",
    )
    assert done.usage.cost_micros == 0


@dataclass
class _Meter:
    prices: PriceBook = field(default_factory=lambda: PriceBook({}, "USD"))


@dataclass
class _SpentRun:
    """As much of a run as a refused call reads: its task, its bounds, its meter (no
    models: a call that got further would fail on them)."""

    task: Task
    bounds: RunBounds = field(default_factory=lambda: RunBounds(token_budget=100_000))
    meter: _Meter = field(default_factory=_Meter)


@pytest.mark.parametrize("spent", [1_000, 1_200])
async def test_a_call_is_refused_once_the_limit_is_reached(spent: int) -> None:
    task = Task("task_1", "acme", "alice", "add", spend_limit=1_000)
    task.usage = TokenUsage(500, 0, cost_micros=spent)
    run = cast(model_calls.CallingRun, _SpentRun(task))
    messages = [Message(role="user", content="add")]

    with pytest.raises(LimitReached) as stopped:
        await model_calls.call(run, "executor", "s1", messages, (), None, stream=False)

    assert stopped.value.reason is StopReason.SPEND_LIMIT
    assert stopped.value.detail == (
        f"the spend limit of 1000 micro-units of USD is reached ({spent} spent)"
    )


async def test_a_task_without_a_limit_of_its_own_is_not_refused() -> None:
    task = Task("task_1", "acme", "alice", "add")
    task.usage = TokenUsage(500, 0, cost_micros=10**9)
    run = cast(model_calls.CallingRun, _SpentRun(task))

    with pytest.raises(AttributeError, match="models"):  # it went on to pick its model
        await model_calls.call(run, "executor", "s1", [], (), None, stream=False)


def test_a_limit_is_in_the_request_fingerprint_only_when_set() -> None:
    plain = TaskRequest("add")
    assert TaskRequest("add", spend_limit=0).fingerprint() == plain.fingerprint()
    assert TaskRequest("add", spend_limit=5).fingerprint() != plain.fingerprint()


def test_a_stored_task_keeps_its_limit_and_its_children_their_share() -> None:
    task = Task("task_1", "acme", "alice", "add", spend_limit=1_000)
    task.children = (ChildSummary("task_2", "helper@1", "task_1/c1", budget=50, spend=400),)
    back = serialization.loads(serialization.dumps(task))
    assert isinstance(back, Task)
    assert back.spend_limit == 1_000
    assert back.children[0].spend == 400
    plain = serialization.dumps(Task("task_1", "acme", "alice", "add"))
    assert "spend" not in plain  # a task without one is stored as before
