"""The burst on two replicas with a tenant's budget set (`burst-budget`): spending stays
within the budget plus one call per replica, and nothing is lost.

Two `agentd serve` replicas on Redis + a new PostgreSQL database, auth on: the API keys
are written to the database before they start (an admin and a user of tenant `acme`, a
user of `globex`). The admin sets acme's daily budget of N tokens (CreateBudget); then
`tasks` acme tasks are started at once across both replicas (the gateway of the burst
scenarios, with the user's key; a budget's refusal is final, not retried), and a few of
globex's beside them. Each task calls the fake model twice (its reported usage,
`fake_model.USAGE`, is what is metered); a call reserves agentd's count of its prompt and
its reply limit first, and waits up to AGENTD_BUDGET_WAIT_SECONDS (30 s by default) for
room that calls in flight hold. The model holds each call `--budget-hold` seconds (0.5):
a budget of N tokens lets about N / a call's worst case calls be in flight at once, so
the burst spends it in well under a minute.

Judged (every one must hold): the ledger's total for acme (GetUsage) <= N + one call per
replica; every refused start is RESOURCE_EXHAUSTED with reason BUDGET_EXHAUSTED and the
QuotaFailure naming the budget; every started task ended (no unended stream, none lost),
either answered or stopped BUDGET_EXHAUSTED; no INTERNAL, no lost or repeated event;
the budget's standing (ListBudgets) is the ledger's total with nothing left reserved;
every globex task completed; and the budget did refuse or stop some tasks. Bounded: the
tasks, and each task's `cap` seconds.
"""

from __future__ import annotations

import asyncio
import secrets
import tempfile
import time
from collections import Counter
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import usage_pb2
from agentd_client.client import AgentClient
from bench.load import processes
from bench.load.fake_model import USAGE
from bench.load.gateway import Gateway, Outcome
from bench.load.scenarios import Config, median
from records.keys import new_key
from stores.api_keys.sql import SqlKeyStore
from stores.sql.database import Database
from stores.sql.engine import migrate

REPLICAS = 2
CALL_TOKENS = USAGE["total_tokens"]
OTHERS = 20
"""Tasks of another tenant, started beside the burst: none may be refused or stopped."""
ANSWERED = ("completed", "STOP_REASON_FINAL_ANSWER")
PARTIAL = ("completed", "STOP_REASON_BUDGET_EXHAUSTED")
"""Stopped by the budget after its tool call: answered from the result it had."""
STOPPED = ("failed", "STOP_REASON_BUDGET_EXHAUSTED")
"""Stopped by the budget before any result."""
REFRESH_SECONDS = 1.0
"""AGENTD_BUDGET_REFRESH_SECONDS of the replicas: the burst starts once it has passed."""


@dataclass
class BudgetResult:
    name: str
    budget: int
    budget_id: str = ""
    outcomes: list[Outcome] = field(default_factory=list)
    others: list[Outcome] = field(default_factory=list)
    ledger_tokens: int = 0
    ledger_calls: int = 0
    ledger_failed: int = 0
    """Calls the ledger keeps as failed (a call cut short on agentd's side counts its
    worst case)."""
    standing: tuple[int, int] = (0, 0)
    """The budget's spent and reserved, as ListBudgets reads them after the burst."""
    peak_reserved: int = 0
    """The most the budget held reserved at once (ListBudgets, read every half second)."""
    wall: float = 0.0

    @property
    def bound(self) -> int:
        return self.budget + REPLICAS * CALL_TOKENS

    @property
    def by_outcome(self) -> Counter[tuple[str, str]]:
        return Counter((o.status, o.stop_reason) for o in self.outcomes)

    @property
    def refused(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "refused"]

    @property
    def badly_refused(self) -> int:
        """Refusals without the QuotaFailure naming the budget (and only it)."""
        return sum(o.quota != (f"budget:{self.budget_id}",) for o in self.refused)

    @property
    def stopped(self) -> int:
        return self.by_outcome[PARTIAL] + self.by_outcome[STOPPED]

    @property
    def started(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status != "refused" and o.task_id]

    @property
    def problems(self) -> dict[str, int]:
        """Every count that must be 0."""
        ended = {ANSWERED, PARTIAL, STOPPED}
        outcomes = self.outcomes
        return {
            "unended": sum(o.status == "unended" for o in outcomes),
            "ended otherwise": sum(
                (o.status, o.stop_reason) not in ended
                for o in self.started
                if o.status != "unended"
            ),
            "not started, not refused": sum(
                not o.task_id and o.status != "refused" for o in outcomes
            ),
            "refused without the QuotaFailure": self.badly_refused,
            "INTERNAL": sum(o.internal for o in outcomes + self.others),
            "lost/repeated events": sum(o.lost_or_repeated for o in outcomes + self.others),
            "over the bound (tokens)": max(0, self.ledger_tokens - self.bound),
            "standing != ledger (tokens)": abs(self.standing[0] - self.ledger_tokens),
            "left reserved (tokens)": self.standing[1],
            "other tenant's not completed": sum(o.status != "completed" for o in self.others),
            "budget never bit": int(not self.refused and not self.stopped),
        }


async def _keys(database: str) -> dict[str, str]:
    """API keys written before the servers start: acme's admin and user, globex's user."""
    await migrate(database)
    db = Database.open(database)
    made: dict[str, str] = {}
    try:
        store = SqlKeyStore(db)
        for name, tenant, principal, roles in (
            ("admin", "acme", "ops", ("admin",)),
            ("acme", "acme", "alice", ()),
            ("globex", "globex", "gus", ()),
        ):
            key, plaintext = new_key(tenant, principal, roles)
            await store.add(key)
            made[name] = plaintext
    finally:
        await db.close()
    return made


def _gateway(stubs: list[pb_grpc.AgentServiceStub], key: str, cap: float) -> Gateway:
    return Gateway(
        stubs, cap=cap, metadata=(("authorization", f"Bearer {key}"),), tools=("calculator",)
    )


async def _ledger(admin: AgentClient, result: BudgetResult) -> None:
    """The ledger's total for the tenant once its last rows are written (they are written
    beside the runs: read until two readings agree, at most 10 s), and the budget's
    standing."""
    last = None
    for _ in range(50):
        usage = await admin.get_usage(group_by=[usage_pb2.USAGE_GROUP_TENANT])
        now = (usage.total.total_tokens, usage.total.calls, usage.total.failed_calls)
        if now == last:
            break
        last = now
        await asyncio.sleep(0.2)
    result.ledger_tokens, result.ledger_calls, result.ledger_failed = last or (0, 0, 0)
    listed = await admin.list_budgets()
    [standing] = [b for b in listed.budgets if b.budget_id == result.budget_id]
    result.standing = (standing.spent, standing.reserved)


async def _replicas(
    stack: AsyncExitStack, folder: Path, settings: dict[str, str]
) -> tuple[list[processes.Child], list[Any]]:
    """REPLICAS servers on the same stores, and an AgentService stub for each."""
    servers, stubs = [], []
    for index in range(REPLICAS):
        server = processes.start_server(f"agentd-{index}", folder / str(index), settings)
        stack.callback(server.stop)
        servers.append(server)
        channel = grpc.aio.insecure_channel(server.address)
        stack.push_async_callback(channel.close, None)
        stubs.append(pb_grpc.AgentServiceStub(channel))
    return servers, stubs


def _settings(config: Config, model: processes.Child, shared: dict[str, str]) -> dict[str, str]:
    return {
        "AGENTD_LLM_BASE_URL": model.address,
        "AGENTD_MAX_RUNNING_TASKS": str(config.slots),
        "AGENTD_MAX_QUEUED_TASKS": str(config.queue),
        "AGENTD_MAX_CONCURRENT_LLM_CALLS": str(config.slots),
        "AGENTD_AUTH": "on",
        "AGENTD_BUDGET_REFRESH_SECONDS": str(REFRESH_SECONDS),
        **shared,
        **config.env,
    }


async def _burst(
    result: BudgetResult, stubs: list[Any], keys: dict[str, str], config: Config, tasks: int
) -> None:
    """`tasks` of acme's tasks at once across the replicas, and OTHERS of globex's."""
    run = secrets.token_hex(4)
    acme = _gateway(stubs, keys["acme"], config.cap)
    globex = _gateway(stubs, keys["globex"], config.cap)
    started = time.monotonic()
    burst = asyncio.gather(
        *(acme.run(n, f"job-{run}-{n}: what is 40+2?", f"{run}-{n}") for n in range(tasks))
    )
    others = asyncio.gather(
        *(globex.run(n, f"job-{run}-g{n}: 40+2?", f"{run}-g{n}") for n in range(OTHERS))
    )
    result.outcomes, result.others = list(await burst), list(await others)
    result.wall = time.monotonic() - started


async def _peak_reserved(admin: AgentClient, result: BudgetResult, stop: asyncio.Event) -> None:
    while not stop.is_set():
        listed = await admin.list_budgets()
        for budget in listed.budgets:
            result.peak_reserved = max(result.peak_reserved, budget.reserved)
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


async def burst_budget(config: Config, tasks: int, budget: int) -> BudgetResult:
    """The scenario, with the model holding each call `config.hold` seconds."""
    result = BudgetResult(f"burst, two replicas, tenant budget of {budget:,} tokens", budget)
    with tempfile.TemporaryDirectory(prefix="agentd-load-") as folder:
        async with AsyncExitStack() as stack:
            model = processes.start_model(Path(folder), config.hold)
            stack.callback(model.stop)
            shared = await stack.enter_async_context(processes.shared_stores())
            keys = await _keys(shared["AGENTD_DATABASE_URL"])
            settings = _settings(config, model, shared)
            servers, stubs = await _replicas(stack, Path(folder), settings)
            admin = AgentClient(servers[0].address, api_key=keys["admin"])
            await stack.enter_async_context(admin)
            made = await admin.create_budget(
                usage_pb2.BUDGET_SCOPE_TENANT,
                usage_pb2.BUDGET_UNIT_TOKENS,
                usage_pb2.BUDGET_WINDOW_DAY,
                limit=budget,
            )
            result.budget_id = made.budget_id
            await asyncio.sleep(REFRESH_SECONDS + 0.2)  # past every replica's cached list
            stop = asyncio.Event()
            sampler = asyncio.create_task(_peak_reserved(admin, result, stop))
            try:
                await _burst(result, stubs, keys, config, tasks)
            finally:
                stop.set()
                await sampler
            await _ledger(admin, result)
    return result


def report(result: BudgetResult) -> bool:
    outcomes = result.by_outcome
    started = result.started
    print(f"== {result.name}")
    print(
        f"  submitted {len(result.outcomes)}: refused at start {len(result.refused)} "
        f"(BUDGET_EXHAUSTED with the QuotaFailure naming {result.budget_id}: "
        f"{len(result.refused) - result.badly_refused}), started {len(started)}: answered "
        f"{outcomes[ANSWERED]}, stopped BUDGET_EXHAUSTED {result.stopped} ({outcomes[PARTIAL]} "
        "of them answered from their tool result)"
    )
    others = ", ".join(f"{s}/{r or '-'} {n}" for (s, r), n in sorted(outcomes.items()))
    print(f"  by outcome: {others}")
    print(
        f"  ledger (GetUsage): {result.ledger_tokens:,} tokens in {result.ledger_calls:,} calls "
        f"({result.ledger_failed} failed); "
        f"bound N + {REPLICAS} calls = {result.budget:,} + {REPLICAS} x {CALL_TOKENS} = "
        f"{result.bound:,}; standing (ListBudgets) spent {result.standing[0]:,}, reserved "
        f"{result.standing[1]:,} (at most {result.peak_reserved:,} reserved at once)"
    )
    completed = sum(o.status == "completed" for o in result.others)
    latencies = [o.latency for o in started if o.status in ("completed", "failed")]
    print(
        f"  other tenant: {completed} of {len(result.others)} completed   wall {result.wall:.1f} s"
        f"   started tasks' latency p50 {median(latencies):.2f} s"
    )
    problems = {k: v for k, v in result.problems.items() if v}
    print("  " + ("; ".join(f"{k} {v}" for k, v in problems.items()) or "every check holds"))
    for error in sorted({e for o in result.outcomes + result.others for e in o.errors})[:5]:
        print(f"  error: {error}")
    print(f"  {'FAIL' if problems else 'PASS'}")
    return not problems
