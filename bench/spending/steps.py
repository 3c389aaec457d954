"""What metering adds to the engine's overhead: the engine benchmark's function-calling turn
and plan-and-execute step (`bench.engine`: wall time minus a bare replay of the same
requests), with every model call metered against none, in one run.

Metered as the server meters: a PriceBook with a price for the model (the providers
file's `default` provider), the usage ledger (in-memory), the metrics observer, and the
budgets: one tenant budget in tokens, definitions through the CachedBudgetStore, its
counter on the in-process meter (the engine bench's stores are in-process), and, for
comparison, on the Redis meter replicas share (127.0.0.1:6379; the run's keys removed
after). One Metering per variant for the whole run, as a process has one. The variants'
runs are interleaved, their order turned each run, so drift on a busy machine hits them
alike. Each overhead is given in wall time (as the engine bench counts it) and in this
process's CPU time (the fake servers run in it too), which other processes on a busy
machine inflate less; and metering's own wall time per call in the engine (`before`,
`answered`). Bounded in count.
"""

from __future__ import annotations

import secrets
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from agent.llm.base import Model
from agent.llm.fakes.server import FakeOpenAIServer
from agent.llm.providers import DEFAULT_PROVIDER, Provider
from agent.metrics import observe_model_call
from agent.spending.budgets import Budgets
from agent.spending.calls import Metered, MeteredRun, Metering
from agent.spending.prices import PriceBook
from bench.engine import (
    FC_TURNS,
    STEPS,
    engine_on,
    fc_script,
    pe_script,
    replay_times,
    run_task,
)
from core.identity import ANONYMOUS
from records.execution import ExecutionMode
from records.messages import ModelSettings
from records.requests import TaskRequest
from records.usage.budgets import Budget, BudgetScope, BudgetUnit, BudgetWindow, new_budget_id
from records.usage.ledger import UsageQuery, UsageTotals
from records.usage.prices import Price
from server import logs
from stores.budgets.base import BudgetMeter
from stores.budgets.cached import CachedBudgetStore
from stores.budgets.memory import InMemoryBudgetMeter, InMemoryBudgetStore
from stores.budgets.redis import RedisBudgetMeter
from stores.redis import RedisConnections, RedisOptions
from stores.tasks.memory import InMemoryTaskStore
from stores.usage.memory import InMemoryUsageLedger

RUNS = 40
"""Tasks of each variant, for each kind of task."""
TARGET = 1.10
REDIS_URL = "redis://127.0.0.1:6379/0"
PRICE = Price(input=2_500_000, output=10_000_000)


def _never(name: str, temperature: float | None, max_tokens: int | None) -> Model:
    raise AssertionError("the price book never makes a model")


class _Timed(Metering):
    """Metering that keeps the wall time of its work before and after each call, in the
    engine (what the event loop runs meanwhile included)."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **options)
        self.times: dict[str, list[float]] = {"before": [], "answered": []}

    async def before(
        self, run: MeteredRun, model: Model, prompt: int, settings: ModelSettings
    ) -> Metered:
        started = time.perf_counter()
        try:
            return await super().before(run, model, prompt, settings)
        finally:
            self.times["before"].append(time.perf_counter() - started)

    def answered(self, run: MeteredRun, model: Model, *rest: Any) -> None:
        started = time.perf_counter()
        try:
            super().answered(run, model, *rest)
        finally:
            self.times["answered"].append(time.perf_counter() - started)


async def _metering(meter: BudgetMeter) -> tuple[_Timed, InMemoryUsageLedger]:
    """Metering as the server builds it (`server.wiring.models.build_spending`), with one
    tenant budget of the bench's tenant that no task reaches."""
    ledger = InMemoryUsageLedger()
    store = CachedBudgetStore(InMemoryBudgetStore(), refresh_seconds=5.0)
    budget = Budget(
        new_budget_id(),
        ANONYMOUS.tenant,
        BudgetScope.TENANT,
        "",
        BudgetUnit.TOKENS,
        BudgetWindow.DAY,
        limit=10**12,
    )
    await store.create(budget)
    default = Provider(DEFAULT_PROVIDER, _never, prices={"m": PRICE})
    prices = PriceBook({DEFAULT_PROVIDER: default})
    budgets = Budgets(store, meter, ledger)
    return _Timed(prices, ledger, budgets, observe_model_call), ledger


Overhead = tuple[float, float]
"""Per turn or step: seconds of wall time, and of this process's CPU time."""


async def _task_overhead(
    llm: FakeOpenAIServer, replay_url: str, run: Callable[[], Awaitable[None]], per: int
) -> Overhead:
    """What one task took beyond a bare replay of its requests, per turn or step: in wall
    time (as the engine bench counts) and in CPU time (which other processes on a busy
    machine do not inflate)."""
    before = len(llm.requests)
    wall, cpu = time.perf_counter(), time.process_time()
    await run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    bare_wall, bare_cpu = await replay_times(replay_url, llm.requests[before:])
    return (wall - bare_wall) / per, (cpu - bare_cpu) / per


async def _turn_overhead(workspace: Path, meter: Metering | None) -> Overhead:
    """One function-calling task on fresh fake servers."""
    async with (
        FakeOpenAIServer(fc_script()) as fc_llm,
        FakeOpenAIServer(fc_script()) as replay_llm,
    ):
        store = InMemoryTaskStore()
        engine = engine_on(fc_llm.base_url, workspace, store, meter)
        request = TaskRequest(
            goal="FC-TASK", mode=ExecutionMode.FUNCTION_CALLING, max_iterations=FC_TURNS + 1
        )
        try:
            return await _task_overhead(
                fc_llm, replay_llm.base_url, lambda: run_task(engine, store, request), FC_TURNS
            )
        finally:
            await engine.close()


def _turned(items: list[str], run: int) -> list[str]:
    """`items` rotated by `run`: each goes first as often as the others."""
    shift = run % len(items)
    return items[shift:] + items[:shift]


async def _turns(workspace: Path, meters: dict[str, Metering | None]) -> dict[str, list[Overhead]]:
    out: dict[str, list[Overhead]] = {name: [] for name in meters}
    for meter in meters.values():  # warm: code paths loaded, budgets cached
        await _turn_overhead(workspace, meter)
    for run in range(RUNS):
        for name in _turned(list(meters), run):
            out[name].append(await _turn_overhead(workspace, meters[name]))
    return out


async def _steps(workspace: Path, meters: dict[str, Metering | None]) -> dict[str, list[Overhead]]:
    """The plan-and-execute chain's overheads per step, an engine per variant."""
    out: dict[str, list[Overhead]] = {name: [] for name in meters}
    request = TaskRequest(goal="PE-TASK", mode=ExecutionMode.PLAN_AND_EXECUTE, max_iterations=10)
    async with FakeOpenAIServer(pe_script()) as llm:
        runs: dict[str, Callable[[], Awaitable[None]]] = {}
        engines = []
        for name, meter in meters.items():
            store = InMemoryTaskStore()
            engine = engine_on(llm.base_url, workspace, store, meter)
            engines.append(engine)
            runs[name] = partial(run_task, engine, store, request)
            await runs[name]()  # warm up
        try:
            for run in range(RUNS):
                for name in _turned(list(meters), run):
                    out[name].append(await _task_overhead(llm, llm.base_url, runs[name], STEPS))
        finally:
            for engine in engines:
                await engine.close()
    return out


def _report(kind: str, figures: dict[str, list[Overhead]]) -> None:
    wall = {name: statistics.median(w for w, _ in runs) for name, runs in figures.items()}
    cpu = {name: statistics.median(c for _, c in runs) for name, runs in figures.items()}
    off = "off"
    print(
        f"  {kind:<22} {off:<16} wall {wall[off] * 1000:.3f} ms{'':<33}cpu {cpu[off] * 1000:.3f} ms"
    )
    for name, label in (("memory", "in-process meter"), ("redis", "Redis meter")):
        ratio = wall[name] / wall["off"]
        verdict = "met" if ratio <= TARGET else f"MISSED by {ratio - TARGET:.2f}"
        target = f"  (target <= {TARGET:.2f}: {verdict})" if name == "memory" else ""
        print(
            f"  {'':<22} {label:<16} wall {wall[name] * 1000:.3f} ms x{ratio:.2f}{target}   "
            f"cpu {cpu[name] * 1000:.3f} ms x{cpu[name] / cpu['off']:.2f}"
        )


def _ms(times: list[float], of: Callable[[list[float]], float] = statistics.mean) -> str:
    return f"{of(times) * 1000:.3f}"


async def _kept(ledger: InMemoryUsageLedger) -> UsageTotals:
    now = datetime.now(UTC)
    query = UsageQuery(ANONYMOUS.tenant, now - timedelta(days=1), now + timedelta(days=1))
    return (await ledger.report(query)).total


async def main() -> None:
    logs.configure("error")
    prefix = f"agentd-bench:{secrets.token_hex(4)}:"
    connections = RedisConnections(RedisOptions(REDIS_URL, client_name="agentd-bench"))
    try:
        local, local_rows = await _metering(InMemoryBudgetMeter())
        shared, shared_rows = await _metering(RedisBudgetMeter(connections.calls, prefix))
        meters: dict[str, Metering | None] = {"off": None, "memory": local, "redis": shared}
        with tempfile.TemporaryDirectory() as tmp:
            turns = await _turns(Path(tmp), meters)
            steps = await _steps(Path(tmp), meters)
        kept = [await _kept(local_rows), await _kept(shared_rows)]
    finally:
        keys = [k async for k in connections.calls.scan_iter(match=f"{prefix}*")]
        if keys:
            await connections.calls.delete(*keys)
        await connections.close()
    print(
        "Metering: the engine's overhead with each model call metered (price, usage ledger, "
        f"one tenant budget) against none ({RUNS} tasks of each, interleaved)"
    )
    _report("function-calling turn", turns)
    _report("plan-and-execute step", steps)
    for name, meter in (("in-process", local), ("Redis", shared)):
        before, answered = meter.times["before"], meter.times["answered"]
        print(
            f"  metering's own time per call, {name + ' meter:':<18} "
            f"before p50 {_ms(before, statistics.median)} ms (mean {_ms(before)}), "
            f"answered p50 {_ms(answered, statistics.median)} ms (mean {_ms(answered)})"
        )
    print(
        "  calls metered: "
        + ", ".join(
            f"{t.calls:,} ({t.total_tokens:,} tokens, {t.cost_micros:,} micro-units, "
            f"{t.unpriced_calls} unpriced) {where}"
            for t, where in zip(kept, ("in-process", "on Redis"), strict=True)
        )
    )
