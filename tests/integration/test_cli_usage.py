"""`agentd budgets`, `agentd usage` and `agentd stats` against `agentd serve` with
authentication on (keys of an admin and of a user written before it starts): budgets
created, listed, changed and deleted; each kind of refusal one line on stderr and a
non-zero status; a task of the fake model (100 prompt and 20 completion tokens a reply)
in what `usage` and `stats` print, and a budget it used up refusing the next task."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd_client.client import AgentClient
from records.keys import new_key
from stores.api_keys.sql import SqlKeyStore
from stores.sql.database import Database
from stores.sql.engine import migrate
from tests.helpers import AGENTD_COMMAND, ROOT, ServerProcess, llm_env, server_process

REPLY = {"text": "done", "usage": {"prompt_tokens": 100, "completion_tokens": 20}, "repeat": -1}
BUDGET_ID = re.compile(r"bgt_\w+")
FC = ("--mode", "function-calling")
DURATION = re.compile(r"\b\d+ ms\b|\b\d+\.\d s\b")
"""A duration as `stats` prints one under a minute (`65 ms`, `1.5 s`)."""
Served = tuple[ServerProcess, dict[str, str]]


async def make_keys(folder: Path) -> dict[str, str]:
    """acme's admin (ops) and a user without roles (alice), on the server's database."""
    url = f"sqlite+aiosqlite:///{folder / 'agentd.db'}"  # where server_process puts it
    folder.mkdir(parents=True, exist_ok=True)
    await migrate(url)
    db = Database.open(url)
    made = {}
    try:
        for principal, roles in (("ops", ("admin",)), ("alice", ())):
            key, made[principal] = new_key("acme", principal, roles)
            await SqlKeyStore(db).add(key)
    finally:
        await db.close()
    return made


@contextmanager
def serving(folder: Path, keys: dict[str, str], base_url: str = "") -> Iterator[Served]:
    """A server with authentication on (and the model at `base_url`, if any)."""
    env = llm_env(base_url, AGENTD_AUTH="on") if base_url else {"AGENTD_AUTH": "on"}
    with server_process(folder, env) as server:
        yield server, keys


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A server without a model, for the commands that need none."""
    folder = tmp_path_factory.mktemp("cli-usage")
    with serving(folder, asyncio.run(make_keys(folder))) as both:
        yield both


@asynccontextmanager
async def served_with_model(folder: Path) -> AsyncIterator[Served]:
    async with FakeOpenAIServer([REPLY]) as llm:
        with serving(folder, await make_keys(folder), llm.base_url) as both:
            yield both


async def agentd(served: Served, who: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as `who` in a process of its own, the event loop free meanwhile (the fake
    model may be in it)."""
    server, keys = served
    env = {"PATH": "/usr/bin:/bin", "AGENTD_ADDRESS": server.address, "AGENTD_API_KEY": keys[who]}
    pipe = asyncio.subprocess.PIPE
    process = await asyncio.create_subprocess_exec(
        *AGENTD_COMMAND, *args, cwd=ROOT, env=env, stdout=pipe, stderr=pipe
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return subprocess.CompletedProcess(args, process.returncode, out.decode(), err.decode())


async def ok(served: Served, *args: str) -> str:
    """What the CLI printed as acme's admin, which must succeed."""
    ran = await agentd(served, "ops", *args)
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def squeezed(text: str) -> list[str]:
    """Each line of a table with its columns one space apart."""
    return [" ".join(line.split()) for line in text.splitlines()]


async def test_budgets_are_created_listed_changed_and_deleted(served: Served) -> None:
    agent = ("--scope", "agent", "--subject", "helper", "--unit", "tokens", "--window", "month")
    made = await ok(served, "budgets", "create", *agent, "--limit", "5000", "--soft-limit", "4000")
    assert re.fullmatch(
        r"created bgt_\w+ \(agent helper, tokens, month\): limit 5000, soft limit 4000, "
        r"spent 0\n",
        made,
    )
    tokens_id = BUDGET_ID.findall(made)[0]
    user = ("--scope", "user", "--subject", "alice", "--unit", "money", "--window", "none")
    made = await ok(served, "budgets", "create", *user, "--limit", "0.25")
    money_id = BUDGET_ID.findall(made)[0]
    assert made == (
        f"created {money_id} (user alice, money, none): limit 0.25 USD, soft limit none, "
        "spent 0.00 USD\n"
    )

    month = datetime.now(UTC).strftime("%Y-%m-01 00:00Z")
    assert squeezed(await ok(served, "budgets", "list")) == [
        "id scope subject unit window limit soft limit spent reserved window start",
        f"{tokens_id} agent helper tokens month 5000 4000 0 0 {month}",
        f"{money_id} user alice money none 0.25 USD - 0.00 USD 0.00 USD -",
    ]

    # a limit not given keeps its value; money is exact micro-units on the wire
    changed = await ok(served, "--json", "budgets", "update", money_id, "--soft-limit", "0.1")
    assert json.loads(changed) | {"created_at": "-"} == {
        "budget_id": money_id,
        "scope": "BUDGET_SCOPE_USER",
        "subject": "alice",
        "unit": "BUDGET_UNIT_MONEY",
        "window": "BUDGET_WINDOW_NONE",
        "limit": 250_000,
        "soft_limit": 100_000,
        "created_by": "ops",
        "created_at": "-",
        "currency": "USD",
    }
    raised = await ok(served, "budgets", "update", tokens_id, "--limit", "6000")
    assert raised.startswith(f"updated {tokens_id} (agent helper, tokens, month): limit 6000, ")
    assert "soft limit 4000" in raised

    deleted = await ok(served, "budgets", "delete", tokens_id)
    assert deleted.startswith(f"deleted {tokens_id} (agent helper, tokens, month)")
    listed = await ok(served, "--json", "budgets", "list")
    assert [json.loads(line)["budget_id"] for line in listed.splitlines()] == [money_id]
    await ok(served, "budgets", "delete", money_id)
    assert await ok(served, "budgets", "list") == "no budgets\n"


async def refused(served: Served, who: str, *args: str, status: int = 1) -> str:
    """The one line on stderr of a command that must fail with `status`."""
    ran = await agentd(served, who, *args)
    assert (ran.returncode, ran.stdout) == (status, ""), ran.stderr
    assert ran.stderr.count("\n") == 1, ran.stderr
    return ran.stderr


async def test_each_refusal_is_one_line_and_a_non_zero_status(served: Served) -> None:
    tenant = ("budgets", "create", "--scope", "tenant", "--unit", "tokens", "--window", "day")
    user = ("budgets", "create", "--scope", "user", "--unit", "tokens", "--window", "day")
    money = ("budgets", "create", "--scope", "tenant", "--unit", "money", "--window", "day")
    denied, usage, stats, missing, unknown, nobody, backwards = await asyncio.gather(
        refused(served, "alice", *tenant, "--limit", "10"),
        refused(served, "alice", "usage"),
        refused(served, "alice", "stats"),
        refused(served, "ops", "budgets", "delete", "bgt_nothing"),
        refused(served, "ops", "budgets", "update", "bgt_nothing", "--limit", "5"),
        refused(served, "ops", *user, "--limit", "10"),
        refused(served, "ops", "usage", "--since", "2026-02-01", "--until", "2026-01-01"),
    )
    assert denied == "error: PERMISSION_DENIED: managing budgets needs one of the roles: admin\n"
    assert usage.startswith("error: PERMISSION_DENIED: reading usage and statistics needs ")
    assert stats == usage
    assert missing == "error: NOT_FOUND BUDGET_NOT_FOUND: no budget 'bgt_nothing'\n"
    assert unknown == missing  # the update looked for it first
    assert nobody.startswith("error: INVALID_ARGUMENT")
    assert "budget.subject: the user's principal id is required" in nobody
    assert backwards.startswith("error: INVALID_ARGUMENT")
    assert "start_time: must be before end_time" in backwards

    # what the command line itself refuses, before any call: a usage error (status 2)
    fine, half, week = await asyncio.gather(
        refused(served, "ops", *money, "--limit", "0.0000001", status=2),
        refused(served, "ops", *tenant, "--limit", "1.5", status=2),
        refused(served, "ops", "usage", "--by", "week", status=2),
    )
    assert (
        fine == "error: --limit '0.0000001' has more than 6 decimals (agentd counts millionths)\n"
    )
    assert half == "error: --limit '1.5' is not a whole number of tokens\n"
    assert week.startswith("error: --by 'week': one of tenant, user, agent, model, provider, day")


async def settled(served: Served) -> None:
    """Until the ledger holds the task's call and the task's end (written beside the run)."""
    server, keys = served
    async with AgentClient(server.address, api_key=keys["ops"], timeout=10) as client:
        async with asyncio.timeout(20):
            while True:  # ends: once both are there, or at the timeout
                usage, stats = await client.get_usage(), await client.get_stats()
                if usage.total.total_tokens == 120 and stats.tasks.tasks == 1:
                    return
                await asyncio.sleep(0.05)


async def test_a_task_in_usage_and_stats_then_refused_by_a_budget(tmp_path: Path) -> None:
    async with served_with_model(tmp_path) as served:
        assert "done" in await ok(served, "exec", "count to one", *FC, "--follow")
        await settled(served)
        by_tenant, report, none, stats, numbers = await asyncio.gather(
            ok(served, "usage", "--by", "tenant"),
            ok(served, "usage", "--by", "day,tenant", "--days", "1", "--json"),
            ok(served, "usage", "--since", "2020-01-01", "--until", "2020-01-02"),
            ok(served, "stats"),
            ok(served, "stats", "--json"),
        )
        assert squeezed(by_tenant) == [
            "tenant calls failed prompt cached completion reasoning tokens cost",
            "acme 1 0 100 0 20 0 120 0.00 USD",
            "total 1 0 100 0 20 0 120 0.00 USD",
            "calls without a price (cost 0): 1",  # the fake model has none
        ]
        rows = json.loads(report)["rows"]
        today = datetime.now(UTC).strftime("%Y-%m-%d")
        assert [(r["day"], r["tenant"], r["total_tokens"]) for r in rows] == [(today, "acme", 120)]
        assert none == "no model calls (in this range, with these filters)\n"
        assert_stats(stats)
        assert json.loads(numbers)["tasks"] | {"p50_duration": "", "p95_duration": ""} == {
            "tasks": 1,
            "completed": 1,
            "success_rate": 1.0,
            "total_tokens": 120,
            "stop_reasons": [{"stop_reason": "STOP_REASON_FINAL_ANSWER", "tasks": 1}],
            "p50_iterations": 1.0,
            "p95_iterations": 1.0,
            "p50_duration": "",
            "p95_duration": "",
        }

        # a daily budget of 100 tokens: today's 120 leave it no room for another task
        tenant = ("--scope", "tenant", "--unit", "tokens", "--window", "day", "--limit", "100")
        budget_id = BUDGET_ID.findall(await ok(served, "budgets", "create", *tenant))[0]
        listed = squeezed(await ok(served, "budgets", "list"))
        assert f"{budget_id} tenant - tokens day 100 - 120 0 {today} 00:00Z" in listed
        line = await refused(served, "ops", "exec", "one more", *FC)
        assert re.fullmatch(
            rf"error: RESOURCE_EXHAUSTED BUDGET_EXHAUSTED: the tenant's daily budget {budget_id} "
            rf"of 100 tokens is used up; it starts afresh in .+; or raise it: agentd budgets "
            rf"update {budget_id} --limit AMOUNT\n",
            line,
        )


def assert_stats(printed: str) -> None:
    """`agentd stats` after one task of one model call and no tool call."""
    assert [DURATION.sub("…", line) for line in squeezed(printed)] == [
        "tasks 1: 1 completed, 0 failed, 0 cancelled; success rate 100 %",
        "stop reasons: final_answer 1",
        "duration p50 …, p95 …; model calls p50 1, p95 1",
        "tokens 120, cost 0.00 USD",
        "",
        "agent tasks success p50 time p95 time p50 calls p95 calls tokens cost",
        "(default) 1 100 % … … 1 1 120 0.00 USD",
        "",
        "no tool calls",
        "",
        "provider calls failed success p50 time p95 time tokens cost",
        "(default) 1 0 100 % … … 120 0.00 USD",
    ]
