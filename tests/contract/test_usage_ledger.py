"""The usage ledger contract, in memory, on SQLite and on the machine's PostgreSQL: a call
kept once, reports grouped, filtered and paged with the whole range's total, what a
budget's scope spent, tenant isolation, and the retention sweep."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from records.usage.budgets import BudgetScope, BudgetUnit
from records.usage.ledger import CallOutcome, ModelCall, UsageGroup, UsageQuery, UsageReport
from records.usage.ledger import UsageTotals as Totals
from stores.usage.base import UsageLedger
from stores.usage.memory import InMemoryUsageLedger
from stores.usage.sql import SqlUsageLedger
from tests.contract.conftest import SQL_BACKENDS
from tests.contract.usage_backends import Migrated, emptied, migrated_once

T0 = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)
DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
G = UsageGroup


@pytest.fixture(scope="module", params=["memory", *SQL_BACKENDS])
def backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Migrated | None]:
    """The backend's database, migrated once for the module (None: in memory)."""
    if request.param == "memory":
        yield None
        return
    with migrated_once(request.param, tmp_path_factory.mktemp("usage")) as migrated:
        yield migrated


@pytest.fixture
async def ledger(backend: Migrated | None) -> AsyncIterator[UsageLedger]:
    if backend is None:
        yield InMemoryUsageLedger()
        return
    async with emptied(backend) as database:
        yield SqlUsageLedger(database)


def a_call(call_id: str, at: datetime = T0, **fields: Any) -> ModelCall:
    agent = fields.pop("agent", "")
    values: dict[str, Any] = {
        "tenant": "acme",
        "task_id": "task-1",
        "root_task_id": "task-1",
        "user": "ann",
        "agent_version": 1,
        "agents": (agent,),
        "provider": "openai",
        "model": "gpt-a",
        "role": "executor",
        "outcome": CallOutcome.OK,
        "prompt_tokens": 100,
        "completion_tokens": 10,
        "cost_micros": 50,
        **fields,
    }
    return ModelCall(call_id=call_id, at=at, agent=agent, **values)


CALLS = (
    a_call("c1"),
    a_call(
        "c2",
        T0 + HOUR,
        user="bob",
        agent="lead",
        model="gpt-b",
        prompt_tokens=200,
        cached_prompt_tokens=30,
        completion_tokens=20,
        reasoning_tokens=5,
        cost_micros=70,
    ),
    a_call(
        "c3",
        T0 + DAY,
        agent="researcher",
        agents=("lead", "researcher"),
        provider="anthropic",
        model="claude",
        prompt_tokens=300,
        completion_tokens=30,
        cost_micros=0,
        priced=False,
    ),
    a_call(
        "c4",
        T0 + DAY + HOUR,
        user="bob",
        agent="lead",
        provider="anthropic",
        model="claude",
        outcome=CallOutcome.FAILED,
        prompt_tokens=0,
        completion_tokens=0,
        cost_micros=0,
        priced=False,
    ),
    # 23:30 UTC on the 7th, in a zone where it is already the 8th.
    a_call("c5", datetime(2026, 12, 8, 1, 30, tzinfo=timezone(timedelta(hours=2)))),
    # Another tenant's calls, never counted for acme.
    a_call("x1", tenant="globex", agent="lead", prompt_tokens=9_000, cost_micros=9_000),
    a_call("x2", T0 + DAY, tenant="globex", user="bob", model="gpt-z", prompt_tokens=9_000),
)


async def record_all(ledger: UsageLedger) -> None:
    await asyncio.gather(*(ledger.record(call) for call in CALLS))


def query(**fields: Any) -> UsageQuery:
    values: dict[str, Any] = {"tenant": "acme", "start": T0 - DAY, "end": T0 + 7 * DAY, **fields}
    return UsageQuery(**values)


def groups(report: UsageReport) -> list[tuple[tuple[str, ...], int, int, int]]:
    """Each row as (its values in the query's order, calls, total tokens, cost)."""
    return [
        (tuple(row.values.values()), row.calls, row.total_tokens, row.cost_micros)
        for row in report.rows
    ]


async def test_a_call_recorded_again_is_kept_once(ledger: UsageLedger) -> None:
    first = a_call("c1")
    await ledger.record(first)
    await ledger.record(a_call("c1", prompt_tokens=5_000))
    # Concurrent records of one call share a commit (one statement for both rows).
    await asyncio.gather(*(ledger.record(a_call("c2")) for _ in range(3)))
    report = await ledger.report(query())
    assert report.total.calls == 2
    assert report.total.prompt_tokens == 200


async def test_every_total_of_a_group(ledger: UsageLedger) -> None:
    await record_all(ledger)
    report = await ledger.report(query(group_by=(G.PROVIDER,)))
    assert report.rows == (
        Totals(
            values={G.PROVIDER: "anthropic"},
            calls=2,
            failed_calls=1,
            prompt_tokens=300,
            completion_tokens=30,
            unpriced_calls=1,  # the failed call is not counted as unpriced
        ),
        Totals(
            values={G.PROVIDER: "openai"},
            calls=3,
            prompt_tokens=400,
            cached_prompt_tokens=30,
            completion_tokens=40,
            reasoning_tokens=5,
            cost_micros=170,
        ),
    )
    assert report.total == Totals(
        calls=5,
        failed_calls=1,
        prompt_tokens=700,
        cached_prompt_tokens=30,
        completion_tokens=70,
        reasoning_tokens=5,
        cost_micros=170,
        unpriced_calls=1,
    )
    assert not report.more


async def test_report_by_each_group(ledger: UsageLedger) -> None:
    await record_all(ledger)
    for group, expected in (
        (G.TENANT, [(("acme",), 5, 770, 170)]),
        (G.USER, [(("ann",), 3, 550, 100), (("bob",), 2, 220, 70)]),
        (G.AGENT, [(("",), 2, 220, 100), (("lead",), 2, 220, 70), (("researcher",), 1, 330, 0)]),
        (G.MODEL, [(("claude",), 2, 330, 0), (("gpt-a",), 2, 220, 100), (("gpt-b",), 1, 220, 70)]),
        (G.PROVIDER, [(("anthropic",), 2, 330, 0), (("openai",), 3, 440, 170)]),
        # c5 is the 8th where it was made, the 7th in UTC.
        (G.DAY, [(("2026-12-07",), 3, 440, 170), (("2026-12-08",), 2, 330, 0)]),
    ):
        assert groups(await ledger.report(query(group_by=(group,)))) == expected, group


async def test_report_by_several_groups_in_their_order(ledger: UsageLedger) -> None:
    await record_all(ledger)
    by_day_provider = await ledger.report(query(group_by=(G.DAY, G.PROVIDER)))
    assert groups(by_day_provider) == [
        (("2026-12-07", "openai"), 3, 440, 170),
        (("2026-12-08", "anthropic"), 2, 330, 0),
    ]
    by_model_user = await ledger.report(query(group_by=(G.MODEL, G.USER, G.MODEL)))
    assert groups(by_model_user) == [
        (("claude", "ann"), 1, 330, 0),
        (("claude", "bob"), 1, 0, 0),
        (("gpt-a", "ann"), 2, 220, 100),
        (("gpt-b", "bob"), 1, 220, 70),
    ]
    assert [set(row.values) for row in by_model_user.rows] == [{G.MODEL, G.USER}] * 4


async def test_no_groups_is_one_row_for_the_tenant(ledger: UsageLedger) -> None:
    empty = await ledger.report(query())
    assert empty.rows == (Totals(),)
    assert empty.total == Totals()
    await record_all(ledger)
    report = await ledger.report(query())
    assert report.rows == (report.total,)
    assert (report.total.calls, report.total.total_tokens) == (5, 770)
    assert (await ledger.report(query(offset=1))).rows == ()


async def test_filters_and_the_range(ledger: UsageLedger) -> None:
    await record_all(ledger)
    for filters, calls in (
        ({"user": "bob"}, 2),
        ({"agent": "lead"}, 2),  # the call's own agent, not the agents above it
        ({"model": "claude"}, 2),
        ({"provider": "openai"}, 3),
        ({"user": "ann", "provider": "anthropic"}, 1),
        ({"user": "nobody"}, 0),
        ({"start": T0, "end": T0 + HOUR}, 1),  # start inclusive, end exclusive
        ({"start": T0 + HOUR, "end": T0 + DAY + HOUR}, 3),
    ):
        report = await ledger.report(query(group_by=(G.USER,), **filters))
        assert report.total.calls == calls, filters
        assert sum(row.calls for row in report.rows) == calls, filters


async def test_pages_follow_the_order_and_keep_the_total(ledger: UsageLedger) -> None:
    await record_all(ledger)
    pages = [
        await ledger.report(query(group_by=(G.MODEL,), limit=2, offset=offset))
        for offset in (0, 2, 3)
    ]
    assert [[row.values[G.MODEL] for row in page.rows] for page in pages] == [
        ["claude", "gpt-a"],
        ["gpt-b"],
        [],
    ]
    assert [page.more for page in pages] == [True, False, False]
    assert {page.total.calls for page in pages} == {5}
    exact = await ledger.report(query(group_by=(G.MODEL,), limit=3))
    assert (len(exact.rows), exact.more) == (3, False)


async def test_another_tenant_is_never_counted(ledger: UsageLedger) -> None:
    await record_all(ledger)
    globex = await ledger.report(query(tenant="globex", group_by=(G.TENANT, G.USER)))
    assert groups(globex) == [
        (("globex", "ann"), 1, 9_010, 9_000),
        (("globex", "bob"), 1, 9_010, 50),
    ]
    assert (await ledger.report(query(tenant="initech"))).total == Totals()
    spent = await ledger.spent("acme", BudgetScope.TENANT, "", BudgetUnit.TOKENS, None, None)
    assert spent == 770


async def spent(ledger: UsageLedger, scope: BudgetScope, subject: str, **window: Any) -> int:
    start, end = window.get("start"), window.get("end")
    return await ledger.spent("acme", scope, subject, BudgetUnit.TOKENS, start, end)


async def test_spent_by_scope_and_unit(ledger: UsageLedger) -> None:
    await record_all(ledger)
    money = await ledger.spent("acme", BudgetScope.TENANT, "", BudgetUnit.MONEY, None, None)
    assert money == 170
    assert await spent(ledger, BudgetScope.TENANT, "") == 770
    assert await spent(ledger, BudgetScope.USER, "ann") == 550
    assert await spent(ledger, BudgetScope.USER, "bob") == 220
    user_money = await ledger.spent("acme", BudgetScope.USER, "bob", BudgetUnit.MONEY, None, None)
    assert user_money == 70
    assert await spent(ledger, BudgetScope.USER, "") == 0
    # An agent's budget counts its children's calls (c3: lead's researcher).
    assert await spent(ledger, BudgetScope.AGENT, "lead") == 550
    assert await spent(ledger, BudgetScope.AGENT, "researcher") == 330
    assert await spent(ledger, BudgetScope.AGENT, "") == 220  # the default agent's tasks


async def test_spent_over_a_window(ledger: UsageLedger) -> None:
    await record_all(ledger)
    tenant = BudgetScope.TENANT
    assert await spent(ledger, tenant, "", start=T0, end=T0 + HOUR) == 110  # c1 only
    assert await spent(ledger, tenant, "", start=T0 + HOUR) == 660  # c2, c3, c4, c5
    assert await spent(ledger, tenant, "", end=T0 + HOUR) == 110
    assert await spent(ledger, tenant, "", start=T0 + DAY, end=T0 + DAY + HOUR) == 330
    assert await spent(ledger, tenant, "", start=T0 + 2 * DAY) == 0


async def test_an_agent_matches_its_own_id_exactly(ledger: UsageLedger) -> None:
    for call in (
        a_call("own", agent="lead"),
        a_call("child", agent="coder", agents=("lead", "coder")),
        a_call("leader", agent="leader", prompt_tokens=1_000),
        a_call("under", agent="sub", agents=("team-lead", "sub"), prompt_tokens=2_000),
        a_call("odd", agent="50%_off", prompt_tokens=4_000),
        a_call("other", tenant="globex", agent="lead", prompt_tokens=8_000),
    ):
        await ledger.record(call)
    agent = BudgetScope.AGENT
    assert await spent(ledger, agent, "lead") == 220
    assert await spent(ledger, agent, "leader") == 1_010
    assert await spent(ledger, agent, "Lead") == 0
    assert await spent(ledger, agent, "lea") == 0
    assert await spent(ledger, agent, "50%_off") == 4_010
    for wildcard in ("%", "_", "le%", "lea_", "50%", "50__off", "%lead"):
        assert await spent(ledger, agent, wildcard) == 0, wildcard


async def test_sweep_deletes_the_oldest_calls_first(ledger: UsageLedger) -> None:
    for call in (
        a_call("old", T0 - 2 * DAY),
        a_call("older", T0 - 3 * DAY, tenant="globex"),
        a_call("recent", T0 - HOUR),
        a_call("kept", T0),
    ):
        await ledger.record(call)
    assert await ledger.sweep(T0, 2) == 2
    assert await ledger.sweep(T0, 2) == 1
    assert await ledger.sweep(T0, 2) == 0
    everything = query(start=T0 - 7 * DAY, group_by=(G.DAY,))
    assert groups(await ledger.report(everything)) == [(("2026-12-07",), 1, 110, 50)]
    assert (await ledger.report(query(tenant="globex", start=T0 - 7 * DAY))).total == Totals()
    assert await spent(ledger, BudgetScope.TENANT, "", start=T0 - HOUR, end=T0) == 0
