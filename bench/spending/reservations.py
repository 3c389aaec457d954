"""What a model call's reservation costs: finding the budgets its task draws on, reserving
its worst case on them and settling what it spent (`Budgets.of_task`, `reserve`,
`settle`: the work metering adds to each call), on the Redis meter replicas share and on
the in-process one, measured in the same run.

Definitions are read through the CachedBudgetStore, warm (as they are for every call but
the first of a tenant in `budget_refresh_seconds`); its inner store is the in-memory one,
which a warm cache never reads. One budget (the tenant's, in tokens) and three (the
tenant's in tokens, its user's in money, its agent's in tokens), with limits no call
reaches. The samples of the four kinds are interleaved, so drift on a busy machine hits
them alike; then CONCURRENT calls at once on one tenant's counter (the Lua scripts run
one at a time in Redis). Redis is the machine's server on 127.0.0.1:6379; the run's keys
are removed afterwards. Bounded in count and time.
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import time
from collections.abc import Awaitable, Callable

from agent.spending.budgets import Budgets
from records.agents.definition import AgentDefinition
from records.tasks import Task
from records.usage.budgets import Budget, BudgetScope, BudgetUnit, BudgetWindow, new_budget_id
from records.usage.prices import Price
from stores.budgets.base import BudgetMeter
from stores.budgets.cached import CachedBudgetStore
from stores.budgets.memory import InMemoryBudgetMeter, InMemoryBudgetStore
from stores.budgets.redis import RedisBudgetMeter
from stores.redis import RedisConnections, RedisOptions
from stores.usage.memory import InMemoryUsageLedger

CALLS = 2_000
"""Samples of each kind (one call's reserve and settle each)."""
SECONDS = 40.0
"""The interleaved samples stop after this long, however many were taken."""
CONCURRENT = 50
ROUNDS = 40
"""Rounds of CONCURRENT calls at once."""
PROMPT, REPLY, SPENT = 1_200, 1_024, 300
"""A call's prompt and reply limit (its worst case), and the reply tokens it spent."""
PRICE = Price(input=2_000_000, output=8_000_000)
LIMIT = 10**15
REDIS_URL = "redis://127.0.0.1:6379/0"


def _budget(tenant: str, scope: BudgetScope, subject: str, unit: BudgetUnit) -> Budget:
    return Budget(new_budget_id(), tenant, scope, subject, unit, BudgetWindow.DAY, LIMIT)


async def _budgets(meter: BudgetMeter) -> tuple[Budgets, Task, Task]:
    """Budgets on `meter`, and two tasks: one drawing on one budget, one on three."""
    store = CachedBudgetStore(InMemoryBudgetStore(), refresh_seconds=3_600)
    await store.create(_budget("one", BudgetScope.TENANT, "", BudgetUnit.TOKENS))
    for budget in (
        _budget("three", BudgetScope.TENANT, "", BudgetUnit.TOKENS),
        _budget("three", BudgetScope.USER, "alice", BudgetUnit.MONEY),
        _budget("three", BudgetScope.AGENT, "researcher", BudgetUnit.TOKENS),
    ):
        await store.create(budget)
    budgets = Budgets(store, meter, InMemoryUsageLedger())
    agent = AgentDefinition("researcher")
    one = Task(task_id="t1", tenant="one", owner="alice", goal="bench")
    three = Task(task_id="t3", tenant="three", owner="alice", goal="bench", agent=agent)
    for task, count in ((one, 1), (three, 3)):
        assert len(await budgets.of_task(task)) == count
        for _ in range(20):  # warm: counters seeded, definitions cached, scripts loaded
            await _call(budgets, task)
    return budgets, one, three


async def _call(budgets: Budgets, task: Task, parts: list[list[float]] | None = None) -> float:
    """Seconds one call's metering of its budgets takes: find, reserve, settle (each of
    the three added to `parts`, when given)."""
    started = time.perf_counter()
    applicable = await budgets.of_task(task)
    found = time.perf_counter()
    hold = await budgets.reserve(applicable, PROMPT, REPLY, PRICE)
    reserved = time.perf_counter()
    await budgets.settle(hold, PROMPT, SPENT, PRICE.cost(PROMPT, SPENT))
    settled = time.perf_counter()
    if parts is not None:
        spans = (found - started, reserved - found, settled - reserved)
        for part, seconds in zip(parts, spans, strict=True):
            part.append(seconds)
    return settled - started


async def _interleaved(
    kinds: dict[str, Callable[[], Awaitable[float]]],
) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in kinds}
    until = time.monotonic() + SECONDS
    for _ in range(CALLS):
        if time.monotonic() > until:
            break
        for name, sample in kinds.items():
            samples[name].append(await sample())
    return samples


async def _at_once(budgets: Budgets, task: Task) -> tuple[list[float], float]:
    """Each call's seconds, CONCURRENT at a time, and the calls per second of them all."""
    times: list[float] = []
    started = time.perf_counter()
    for _ in range(ROUNDS):
        times += await asyncio.gather(*(_call(budgets, task) for _ in range(CONCURRENT)))
    return times, len(times) / (time.perf_counter() - started)


async def _pings(connections: RedisConnections, count: int = 500) -> list[float]:
    """What one round trip to Redis takes (a reservation makes two: reserve, settle)."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        await connections.calls.ping()
        times.append(time.perf_counter() - started)
    return times


def _ms(times: list[float], q: float = 0.5) -> float:
    """The median (q 0.5) or the q-th quantile (nearest rank) of `times`, in ms."""
    if q == 0.5:
        return statistics.median(times) * 1000
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _row(label: str, shared: list[float], local: list[float], target: str = "") -> None:
    print(
        f"  {label:<26} Redis p50 {_ms(shared):.3f} ms  p99 {_ms(shared, 0.99):.3f} ms   "
        f"in-process p50 {_ms(local):.3f} ms  p99 {_ms(local, 0.99):.3f} ms{target}"
    )


async def main() -> None:
    prefix = f"agentd-bench:{secrets.token_hex(4)}:"
    connections = RedisConnections(RedisOptions(REDIS_URL, client_name="agentd-bench"))
    try:
        shared, s_one, s_three = await _budgets(RedisBudgetMeter(connections.calls, prefix))
        local, l_one, l_three = await _budgets(InMemoryBudgetMeter())
        pings = await _pings(connections)
        parts: list[list[float]] = [[], [], []]
        samples = await _interleaved(
            {
                "redis 1": lambda: _call(shared, s_one, parts),
                "memory 1": lambda: _call(local, l_one),
                "redis 3": lambda: _call(shared, s_three),
                "memory 3": lambda: _call(local, l_three),
            }
        )
        crowd, crowd_rate = await _at_once(shared, s_one)
        crowd_local, local_rate = await _at_once(local, l_one)
    finally:
        keys = [k async for k in connections.calls.scan_iter(match=f"{prefix}*")]
        if keys:
            await connections.calls.delete(*keys)
        await connections.close()
    print(
        "Budgets: one model call's reservation (of_task + reserve + settle; definitions "
        f"cached, warm; {len(samples['redis 1'])} calls of each kind, interleaved)"
    )
    p50 = _ms(samples["redis 1"])
    verdict = "met" if p50 <= 1.0 else f"MISSED by {p50 - 1.0:.3f} ms"
    _row("1 budget (tenant)", samples["redis 1"], samples["memory 1"])
    print(f"    -> Redis p50 {p50:.3f} ms per call (target <= 1 ms: {verdict})")
    find, reserve, settle = (_ms(part) for part in parts)
    print(
        f"    of which p50: of_task {find:.3f} ms, reserve {reserve:.3f} ms, settle {settle:.3f} ms"
    )
    _row("3 budgets (t+user+agent)", samples["redis 3"], samples["memory 3"])
    _row(f"{CONCURRENT} at once, 1 budget", crowd, crowd_local)
    print(
        f"    calls/s, {CONCURRENT} at once: Redis {crowd_rate:,.0f}   in-process "
        f"{local_rate:,.0f} (one process's event loop drives them all)"
    )
    print(
        f"  Redis round trip (PING) p50 {_ms(pings):.3f} ms  p99 {_ms(pings, 0.99):.3f} ms "
        "(a reservation is two: reserve, settle)"
    )
