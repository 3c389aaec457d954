"""Model calls metered in one engine on the in-process stores: priced at the providers
file's prices, kept in the usage ledger (failed providers of a fallback chain too),
reserved on the budgets the task draws on (a hard limit stops it, lowers a reply to fit,
or refuses its start; a soft limit parks it for a person's approval)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.engine import Engine
from agent.limits import EngineConfig
from agent.llm.base import Model, ModelError
from agent.llm.providers import FallbackModel, Provider, chain
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text, tool_calls
from agent.parts import EngineParts
from agent.spending.budgets import Budgets, NoRoom
from agent.spending.calls import Metering
from agent.spending.prices import PriceBook
from agent.tool_use.budget_approval import past_soft_limit
from core.errors import BudgetExhaustedError
from core.identity import CallContext, Principal
from records import events as ev
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.requests import TaskRequest
from records.tasks import StopReason, TaskStatus, TokenUsage
from records.tools.approvals import ApprovalDecision
from records.usage.budgets import Budget, BudgetScope, BudgetUnit, BudgetWindow, new_budget_id
from records.usage.ledger import CallOutcome, ModelCall
from records.usage.prices import Price
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.budgets.memory import InMemoryBudgetMeter, InMemoryBudgetStore
from stores.tasks.base import logged
from stores.tasks.memory import InMemoryTaskStore
from stores.usage.memory import InMemoryUsageLedger

CALLER = CallContext(Principal("alice", "acme", ("approver",)))
GPT = Price(input=2_000_000, output=8_000_000, cached_input=500_000)


class Ledger(InMemoryUsageLedger):
    """The in-memory ledger, with the rows it was given in order."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[ModelCall] = []

    async def record(self, call: ModelCall) -> None:
        self.rows.append(call)
        await super().record(call)


def engine_of(
    model: Model, tmp_path: Path, providers: dict[str, Provider] | None = None
) -> tuple[Engine, Ledger, InMemoryBudgetStore, Metering]:
    ledger = Ledger()
    store = InMemoryBudgetStore()
    budgets = Budgets(store, InMemoryBudgetMeter(), ledger)
    meter = Metering(PriceBook(providers or {}), ledger, budgets, ask=past_soft_limit)
    settings = Settings(workspace_dir=tmp_path, tool_permission="execute")
    engine = Engine(
        ModelRoles(default=model, providers=providers or {}),
        build_registry(settings, InMemoryAuditLog()),
        EngineParts(InMemoryTaskStore(), meter=meter),
        EngineConfig(),
    )
    return engine, ledger, store, meter


async def budget(
    store: InMemoryBudgetStore, unit: BudgetUnit, limit: int = 0, soft_limit: int = 0
) -> Budget:
    made = Budget(
        new_budget_id(),
        "acme",
        BudgetScope.TENANT,
        "",
        unit,
        BudgetWindow.DAY,
        limit,
        soft_limit,
        "admin",
        datetime.now(UTC),
    )
    return await store.create(made)


async def ended(engine: Engine, task_id: str) -> list[ev.TaskEvent]:
    async with asyncio.timeout(10):
        return [e async for e in engine.events("acme", task_id)]


def priced_provider(name: str, model: Model, price: Price | None) -> Provider:
    prices = {model.name: price} if price is not None else {}
    return Provider(name, lambda *_: model, (), prices=prices)


async def test_a_call_is_priced_and_kept_in_the_ledger(tmp_path: Path) -> None:
    reply = replace(text("done", prompt_tokens=1_000, completion_tokens=100))
    reply = replace(reply, usage=TokenUsage(1_000, 100, cached_prompt_tokens=400))
    inner = FunctionModel(lambda *_: reply)
    inner.name = "gpt-x"
    primary = priced_provider("primary", inner, GPT)
    model = chain({"primary": primary}, [("primary", "gpt-x")], lambda p, n: inner)
    engine, ledger, _, meter = engine_of(model, tmp_path, {"primary": primary})

    task = await engine.start(TaskRequest("hi", mode=ExecutionMode.FUNCTION_CALLING), CALLER)
    events = await ended(engine, task.task_id)
    await meter.drain()

    # 600 uncached at 2.00, 400 cached at 0.50, 100 out at 8.00 per million: 2,200 micro
    cost = (600 * 2_000_000 + 400 * 500_000 + 100 * 8_000_000) // 1_000_000
    usage = [e.payload for e in events if isinstance(e.payload, ev.UsageReported)]
    assert [u.call.cost_micros for u in usage] == [cost]
    assert usage[0].task_total.cost_micros == cost
    assert (await engine.find("acme", task.task_id)).usage.cost_micros == cost
    [row] = ledger.rows
    assert (row.provider, row.model, row.outcome) == ("primary", "gpt-x", CallOutcome.OK)
    assert (row.prompt_tokens, row.cached_prompt_tokens, row.completion_tokens) == (
        1_000,
        400,
        100,
    )
    assert row.cost_micros == cost
    assert row.priced
    assert (row.tenant, row.user, row.task_id, row.root_task_id) == (
        "acme",
        "alice",
        task.task_id,
        task.task_id,
    )


async def test_a_failed_provider_of_the_chain_is_kept_as_a_failed_call(tmp_path: Path) -> None:
    def down(*_: object) -> ModelResponse:
        raise ModelError("503 from upstream", retryable=True)

    broken, backup_model = FunctionModel(down), FunctionModel(lambda *_: text("ok"))
    broken.name, backup_model.name = "big", "small"
    providers = {
        "primary": priced_provider("primary", broken, GPT),
        "backup": priced_provider("backup", backup_model, None),
    }
    made = {"primary": broken, "backup": backup_model}
    model = chain(providers, [("primary", "big"), ("backup", "small")], lambda p, n: made[p.name])
    engine, ledger, _, meter = engine_of(model, tmp_path, providers)

    task = await engine.start(TaskRequest("hi", mode=ExecutionMode.FUNCTION_CALLING), CALLER)
    await ended(engine, task.task_id)
    await meter.drain()

    assert [(r.provider, r.model, r.outcome) for r in ledger.rows] == [
        ("primary", "big", CallOutcome.FAILED),
        ("backup", "small", CallOutcome.OK),
    ]
    assert not ledger.rows[1].priced
    assert ledger.rows[1].cost_micros == 0


async def test_a_hard_limit_stops_the_task_within_it(tmp_path: Path) -> None:
    seen: list[int | None] = []

    def model(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        seen.append(settings.max_tokens)
        sum_ = f"1+{len(seen)}"  # never the same call twice
        # no usage reported: agentd counts the prompt as it reserved it (no settlement error)
        call = ("calculator", {"expression": sum_})
        return tool_calls(call, prompt_tokens=0, completion_tokens=0)

    engine, ledger, store, meter = engine_of(FunctionModel(model), tmp_path)
    limit = await budget(store, BudgetUnit.TOKENS, limit=1_500)
    request = TaskRequest(
        "add forever",
        tools=("calculator",),
        mode=ExecutionMode.FUNCTION_CALLING,
        max_iterations=20,
    )
    task = await engine.start(request, CALLER)
    await ended(engine, task.task_id)
    await meter.drain()

    done = await engine.find("acme", task.task_id)
    assert done.stop_reason is StopReason.BUDGET_EXHAUSTED
    assert limit.budget_id in done.stop_detail
    spent = sum(r.total_tokens for r in ledger.rows)
    assert 1_000 < spent <= 1_500  # used, and never past the limit
    assert 1 < len(seen) < 20
    first, last = seen[0], seen[-1]
    assert first is not None
    assert last is not None
    assert last < first  # the last reply was cut to fit

    await budget_spent(store, meter)  # nothing left of it: the next task cannot start
    with pytest.raises(BudgetExhaustedError) as refused:
        await engine.start(TaskRequest("more", mode=ExecutionMode.FUNCTION_CALLING), CALLER)
    assert refused.value.quota_violations[0].field.startswith("budget:bgt_")


async def waiting_for_a_person(engine: Engine, task_id: str) -> None:
    async with asyncio.timeout(10):
        while True:
            if (await engine.find("acme", task_id)).status is TaskStatus.INPUT_REQUIRED:
                return
            await asyncio.sleep(0.01)


def store_of(engine: Engine) -> InMemoryTaskStore:
    found = engine._store
    assert isinstance(found, InMemoryTaskStore)
    return found


async def stores_logged(store: InMemoryTaskStore, task_id: str, through: int) -> list[ev.TaskEvent]:
    return await logged(store, "acme", task_id, 0, through)


async def budget_spent(store: InMemoryBudgetStore, meter: Metering) -> None:
    """Tighten the tenant's budget to what was spent already."""
    [found] = await store.applicable("acme", "alice", ("",))
    assert meter.budgets is not None
    [counter] = await meter.budgets.standing([found], datetime.now(UTC))
    await store.update("acme", found.budget_id, counter.spent, 0)


async def test_a_soft_limit_parks_the_task_until_a_person_approves(tmp_path: Path) -> None:
    calls = 0

    def model(*_: object) -> ModelResponse:
        nonlocal calls
        calls += 1
        if calls < 3:
            return tool_calls(("calculator", {"expression": f"2+{calls}"}), prompt_tokens=5_000)
        return text("four", prompt_tokens=5_000)

    replies = FunctionModel(model)
    replies.max_tokens = 100  # a call's worst case: its prompt (agentd's count) and 100
    engine, _, store, _ = engine_of(replies, tmp_path)
    soft = await budget(store, BudgetUnit.TOKENS, soft_limit=7_000)  # two calls' 5,005 each
    request = TaskRequest("add", tools=("calculator",), mode=ExecutionMode.FUNCTION_CALLING)
    task = await engine.start(request, CALLER)

    await waiting_for_a_person(engine, task.task_id)
    slot = f"budget:{soft.budget_id}"
    waiting = await engine.find("acme", task.task_id)
    logged = await stores_logged(store_of(engine), task.task_id, waiting.last_sequence)
    asked = [e.payload for e in logged if isinstance(e.payload, ev.ApprovalRequested)]
    assert [(a.call_id, a.tool_name) for a in asked] == [(slot, "budget")]
    assert calls == 2  # the third call waits: it would pass the soft limit

    await engine.approve(CALLER, task.task_id, slot, ApprovalDecision(True, "alice"))
    await ended(engine, task.task_id)
    done = await engine.find("acme", task.task_id)
    assert done.status is TaskStatus.COMPLETED
    assert done.final_answer == "four"


async def test_a_soft_limit_denied_stops_the_task(tmp_path: Path) -> None:
    engine, _, store, _ = engine_of(
        FunctionModel(lambda *_: tool_calls(("calculator", {"expression": "1"}))), tmp_path
    )
    soft = await budget(store, BudgetUnit.TOKENS, soft_limit=20)
    task = await engine.start(TaskRequest("add", mode=ExecutionMode.FUNCTION_CALLING), CALLER)
    await waiting_for_a_person(engine, task.task_id)
    decision = ApprovalDecision(False, "bob", comment="too dear")
    await engine.approve(CALLER, task.task_id, f"budget:{soft.budget_id}", decision)
    await ended(engine, task.task_id)
    done = await engine.find("acme", task.task_id)
    assert done.stop_reason is StopReason.BUDGET_EXHAUSTED
    assert "bob did not let the task go past" in done.stop_detail


async def test_a_money_budget_counts_cost_at_the_dearest_price(tmp_path: Path) -> None:
    reply = text("done", prompt_tokens=1_000, completion_tokens=1_000)
    inner = FunctionModel(lambda *_: reply)
    inner.name = "gpt-x"
    primary = priced_provider("primary", inner, GPT)
    model: FallbackModel = chain({"primary": primary}, [("primary", "gpt-x")], lambda p, n: inner)
    engine, _, store, meter = engine_of(model, tmp_path, {"primary": primary})
    money = await budget(store, BudgetUnit.MONEY, limit=1_000_000)

    task = await engine.start(TaskRequest("hi", mode=ExecutionMode.FUNCTION_CALLING), CALLER)
    await ended(engine, task.task_id)
    await meter.drain()  # the settlement is queued beside the run
    assert meter.budgets is not None
    [counter] = await meter.budgets.standing([money], datetime.now(UTC))
    assert counter.spent == (1_000 * 2_000_000 + 1_000 * 8_000_000) // 1_000_000
    assert counter.reserved == 0


async def test_a_step_clock_whose_step_ended_is_left_alone() -> None:
    """A limit's partial answer (its synthesis call) waits for its turn to call the model
    with the step clock stopped, after the step's timer ended: that must not fail the task
    ("Cannot change state of finished Timeout")."""
    from agent import limits

    async with asyncio.timeout(5.0) as timer:
        await asyncio.sleep(0)  # the step: its timer entered, then ended
    token = limits._STEP_TIMER.set(timer)
    try:
        async with limits.step_clock_stopped():
            await asyncio.sleep(0)
    finally:
        limits._STEP_TIMER.reset(token)


async def test_a_lost_counter_is_rebuilt_from_the_ledger_not_from_zero() -> None:
    """Redis restarted (its counters gone): the next reservation finds the window's
    counter missing and seeds it from the ledger, so what was spent still counts."""
    ledger, store, meter = Ledger(), InMemoryBudgetStore(), InMemoryBudgetMeter()
    budgets = Budgets(store, meter, ledger, known_seconds=3_600)
    limit = await budget(store, BudgetUnit.TOKENS, limit=1_000)
    hold = await budgets.reserve([limit], 800, 100, None)
    await budgets.settle(hold, 800, 100, 0)
    spent = ModelCall(
        "c1", datetime.now(UTC), "acme", "t1", "t1", "alice", "", 0, ("",), "", "m", "executor",
        CallOutcome.OK, prompt_tokens=800, completion_tokens=100,
    )  # fmt: skip
    await ledger.record(spent)
    meter._windows.clear()  # the live counters are gone; this process still trusts them

    with pytest.raises(NoRoom):
        await budgets.reserve([limit], 800, 100, None)
    [counter] = await budgets.standing([limit], datetime.now(UTC))
    assert counter.spent == 900


async def test_a_task_that_cannot_start_within_a_budget_is_refused(tmp_path: Path) -> None:
    """Room left, but not for the task's first call (its instructions, task and tools):
    refused at once, the budget named, with when its window starts afresh."""
    engine, _, store, _ = engine_of(FunctionModel(lambda *_: text("hi")), tmp_path)
    roomy = await budget(store, BudgetUnit.TOKENS, limit=100_000)
    first = await engine.start(TaskRequest("say hi", mode=ExecutionMode.FUNCTION_CALLING), CALLER)
    await ended(engine, first.task_id)  # its prompt: the shortest this model was sent
    tight = await store.update("acme", roomy.budget_id, 30, 0)
    with pytest.raises(BudgetExhaustedError) as refused:
        await engine.start(TaskRequest("say hi", mode=ExecutionMode.FUNCTION_CALLING), CALLER)
    assert [v.field for v in refused.value.quota_violations] == [f"budget:{tight.budget_id}"]
    assert refused.value.retry_after_seconds is not None
    assert refused.value.retry_after_seconds <= 86_400


async def test_a_call_after_midnight_reserves_on_the_new_days_counter() -> None:
    """The names of a call's counters are kept between calls, but never past their
    window: the first call of a new day reserves on that day's counter (seeded afresh),
    even within `known_seconds` of the last call of the day before."""
    moments = [datetime(2026, 12, 7, 23, 59, 59, tzinfo=UTC)]
    ledger, store, meter = Ledger(), InMemoryBudgetStore(), InMemoryBudgetMeter()
    budgets = Budgets(store, meter, ledger, known_seconds=3_600, clock=lambda: moments[0])
    daily = await budget(store, BudgetUnit.TOKENS, limit=1_000)
    late = await budgets.reserve([daily], 800, 100, None)
    await budgets.settle(late, 800, 100, 0)
    moments[0] = datetime(2026, 12, 8, 0, 0, 1, tzinfo=UTC)
    early = await budgets.reserve([daily], 800, 100, None)  # the old day's 900 do not count
    assert late.counters != early.counters
    assert early.counters == (daily.counter(moments[0]),)


def test_the_call_paths_copies_match_dataclasses_replace() -> None:
    """`ModelSettings.limited` and `TokenUsage.costing` copy every field, as `replace`."""
    settings = ModelSettings(0.3, 99, ("END",), "none", {"type": "object"}, "shape")
    assert settings.limited(7) == replace(settings, max_tokens=7)
    usage = TokenUsage(10, 20, 3, 4, 5, 6)
    assert usage.costing(77) == replace(usage, cost_micros=77)
