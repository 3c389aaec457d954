"""The statistics reader on SQLite and the machine's PostgreSQL, over rows its stores
wrote: task history (`SqlTaskHistory`), the tool call audit (`SqlAuditLog`) and the usage
ledger (`SqlUsageLedger`). Tasks by status and stop reason, durations and iterations;
tools and providers with their failures and latencies; per agent, one agent, another
tenant, and percentiles of the latest rows when there are more than `max_rows`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from records.agents.definition import AgentDefinition
from records.tasks import StopReason, Task, TaskStatus
from records.tools.audit import ToolCallRecord
from records.usage.ledger import CallOutcome, ModelCall
from records.usage.stats import ProviderStats, Stats, StatsQuery, TaskStats, ToolStats
from stores.audit.sql import SqlAuditLog
from stores.history.sql import SqlTaskHistory
from stores.usage.sql import SqlUsageLedger
from stores.usage.stats_sql import SqlStatsReader
from tests.contract.conftest import SQL_BACKENDS
from tests.contract.usage_backends import Migrated, emptied, migrated_once

T0 = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def a_task(
    task_id: str, agent: str | None, status: TaskStatus, started: float, took: float, **fields: Any
) -> Task:
    return Task(
        task_id=task_id,
        tenant=fields.pop("tenant", "acme"),
        owner="ann",
        goal="do it",
        agent=AgentDefinition(agent) if agent is not None else None,
        status=status,
        created_at=at(started),
        updated_at=at(started + took),
        **fields,
    )


C, F, X = TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED
TASKS = (
    a_task("t1", None, C, 0, 10, stop_reason=StopReason.FINAL_ANSWER),
    a_task("t2", "lead", C, 60, 30, stop_reason=StopReason.MAX_ITERATIONS),
    a_task("t3", "lead", F, 120, 60, stop_reason=StopReason.ERROR),
    a_task("t4", "lead", X, 180, 20, stop_reason=StopReason.CANCELLED),
    a_task("t5", "researcher", C, 240, 40),  # no stop reason
    # Not counted: still running, ended before the range, ended at its end.
    a_task("t6", "lead", TaskStatus.RUNNING, 300, 0),
    a_task("t7", "lead", C, -100, 99, stop_reason=StopReason.FINAL_ANSWER),
    a_task("t8", "lead", C, 86_000, 400, stop_reason=StopReason.FINAL_ANSWER),
    a_task("g1", "lead", C, 0, 5, tenant="globex", stop_reason=StopReason.FINAL_ANSWER),
)


def a_call(call_id: str, task_id: str, agent: str, seconds: float, **fields: Any) -> ModelCall:
    values: dict[str, Any] = {
        "tenant": "acme",
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
    return ModelCall(
        call_id, at(seconds), task_id=task_id, root_task_id=task_id, agent=agent, **values
    )


ANTHROPIC: dict[str, Any] = {
    "provider": "anthropic",
    "model": "claude",
    "prompt_tokens": 200,
    "completion_tokens": 20,
    "cost_micros": 70,
}
NOTHING = {"prompt_tokens": 0, "completion_tokens": 0, "cost_micros": 0}
CALLS = (
    a_call("m1", "t1", "", 1, latency_ms=9_000),
    a_call("m2", "t1", "", 2, latency_ms=3_000),
    a_call(
        "m3",
        "t2",
        "lead",
        61,
        **{**ANTHROPIC, **NOTHING},
        outcome=CallOutcome.FAILED,
        latency_ms=5_000,
    ),
    a_call("m4", "t2", "lead", 62, **ANTHROPIC, latency_ms=2_000),
    a_call("m5", "t2", "lead", 63, **ANTHROPIC, latency_ms=4_000),
    a_call("m6", "t3", "lead", 121, latency_ms=500),
    a_call(
        "m7",
        "t5",
        "researcher",
        241,
        agents=("lead", "researcher"),
        prompt_tokens=300,
        completion_tokens=30,
        cost_micros=0,
        latency_ms=1_500,
    ),
    a_call("m8", "t6", "lead", 300, latency_ms=1_000),  # a running task's: its provider's only
    a_call("m9", "t7", "lead", -50, latency_ms=1_000),  # before the range
    a_call("x1", "g1", "lead", 1, tenant="globex", prompt_tokens=9_000, latency_ms=7_000),
)


def a_record(
    call_id: str, tool: str, outcome: str, seconds: float, took: float, task_id: str, **fields: Any
) -> ToolCallRecord:
    return ToolCallRecord(
        call_id=call_id,
        time=at(seconds),
        principal_id="ann",
        tenant=fields.pop("tenant", "acme"),
        trace_id="trace",
        tool_name=tool,
        arguments={},
        decision="denied" if outcome == "denied" else "allowed",
        rule="test",
        outcome=outcome,
        result_digest="",
        duration_seconds=took,
        task_id=task_id,
        **fields,
    )


RECORDS = (
    a_record("r1", "search", "ok", 5, 1.0, "t1"),
    a_record("r2", "search", "ok", 65, 2.0, "t2"),
    a_record("r3", "search", "failed", 66, 3.0, "t2"),
    a_record("r4", "search", "ok", 125, 0.0, "t3", cached=True),
    a_record("r5", "delegate", "dispatched", 67, 0.0, "t2"),
    a_record("r6", "shell", "denied", 126, 0.0, "t3"),
    a_record("r7", "shell", "timeout", 245, 5.0, "t5"),
    a_record("r8", "shell", "refused", 10, 0.1, ""),  # CallTool: no task
    a_record("r9", "search", "ok", -10, 1.0, "t7"),  # before the range
    a_record("x1", "search", "ok", 3, 1.0, "g1", tenant="globex"),
)


@pytest.fixture(scope="module", params=SQL_BACKENDS)
def backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Migrated]:
    """The backend's database, migrated once for the module."""
    with migrated_once(request.param, tmp_path_factory.mktemp("stats")) as migrated:
        yield migrated


@pytest.fixture
async def reader(backend: Migrated) -> AsyncIterator[SqlStatsReader]:
    """The reader over the rows above, written by their stores."""
    async with emptied(backend) as database:
        history, audit, ledger = (
            SqlTaskHistory(database),
            SqlAuditLog(database),
            SqlUsageLedger(database),
        )
        await asyncio.gather(
            *(history.record(task) for task in TASKS),
            *(audit.write(record) for record in RECORDS),
            *(ledger.record(call) for call in CALLS),
        )
        yield SqlStatsReader(database)


async def stats(reader: SqlStatsReader, **fields: Any) -> Stats:
    values: dict[str, Any] = {"tenant": "acme", "start": T0, "end": at(86_400), **fields}
    return await reader.stats(StatsQuery(**values))


LEAD = TaskStats(
    agent="lead",
    tasks=3,
    completed=1,
    failed=1,
    cancelled=1,
    stop_reasons={"cancelled": 1, "error": 1, "max_iterations": 1},
    p50_seconds=30.0,  # of 20, 30, 60
    p95_seconds=60.0,
    p50_iterations=1.0,  # of 0, 1, 3
    p95_iterations=3.0,
    total_tokens=550,
    cost_micros=190,
)


async def test_tasks_by_status_and_stop_reason(reader: SqlStatsReader) -> None:
    found = await stats(reader)
    assert found.tasks == TaskStats(
        tasks=5,
        completed=3,
        failed=1,
        cancelled=1,
        # t5 has no stop reason: counted in `tasks`, not here.
        stop_reasons={"cancelled": 1, "error": 1, "final_answer": 1, "max_iterations": 1},
        p50_seconds=30.0,  # of 10, 20, 30, 40, 60
        p95_seconds=60.0,
        p50_iterations=1.0,  # of 0, 1, 1, 2, 3 model calls
        p95_iterations=3.0,
        total_tokens=1_100,
        cost_micros=290,
    )
    assert found.tasks.success_rate == 0.6
    assert not found.sampled


async def test_each_agent_most_tasks_first(reader: SqlStatsReader) -> None:
    found = await stats(reader)
    default = TaskStats(
        agent="",
        tasks=1,
        completed=1,
        stop_reasons={"final_answer": 1},
        p50_seconds=10.0,
        p95_seconds=10.0,
        p50_iterations=2.0,
        p95_iterations=2.0,
        total_tokens=220,
        cost_micros=100,
    )
    researcher = TaskStats(
        agent="researcher",
        tasks=1,
        completed=1,
        p50_seconds=40.0,
        p95_seconds=40.0,
        p50_iterations=1.0,
        p95_iterations=1.0,
        total_tokens=330,
    )
    assert found.agents == (LEAD, default, researcher)
    assert [a.success_rate for a in found.agents] == [1 / 3, 1.0, 1.0]


async def test_each_tool_most_calls_first(reader: SqlStatsReader) -> None:
    found = await stats(reader)
    assert found.tools == (
        # Latencies of the calls the tool ran for (1, 2, 3 s): not the cached one.
        ToolStats("search", calls=4, failed=1, p50_seconds=2.0, p95_seconds=3.0),
        # denied, timeout and refused all failed.
        ToolStats("shell", calls=3, failed=3, p50_seconds=0.1, p95_seconds=5.0),
        ToolStats("delegate", calls=1, failed=0),  # dispatched: handed to the engine
    )
    assert [t.success_rate for t in found.tools] == [0.75, 0.0, 1.0]


async def test_each_provider_most_calls_first(reader: SqlStatsReader) -> None:
    found = await stats(reader)
    assert found.providers == (
        # m1, m2, m6, m7 and m8 (a running task's call counts here).
        ProviderStats("openai", 5, 0, 1.5, 9.0, total_tokens=770, cost_micros=200),
        ProviderStats("anthropic", 3, 1, 4.0, 5.0, total_tokens=440, cost_micros=140),
    )
    assert found.providers[1].success_rate == 2 / 3


async def test_one_agent(reader: SqlStatsReader) -> None:
    found = await stats(reader, agent="lead")
    assert found.tasks == LEAD
    assert found.agents == (LEAD,)
    assert found.tools == (  # the calls of lead's tasks (t2, t3)
        ToolStats("search", calls=3, failed=1, p50_seconds=2.0, p95_seconds=3.0),
        ToolStats("delegate", calls=1, failed=0),
        ToolStats("shell", calls=1, failed=1),
    )
    assert found.providers == (  # lead's own calls, not its researcher's (m7)
        ProviderStats("anthropic", 3, 1, 4.0, 5.0, total_tokens=440, cost_micros=140),
        ProviderStats("openai", 2, 0, 0.5, 1.0, total_tokens=220, cost_micros=100),
    )
    nobody = await stats(reader, agent="nobody")
    assert nobody == Stats(tasks=TaskStats(agent="nobody"))


async def test_another_tenant_is_never_counted(reader: SqlStatsReader) -> None:
    found = await stats(reader, tenant="globex")
    assert found.tasks == TaskStats(
        tasks=1,
        completed=1,
        stop_reasons={"final_answer": 1},
        p50_seconds=5.0,
        p95_seconds=5.0,
        p50_iterations=1.0,
        p95_iterations=1.0,
        total_tokens=9_010,
        cost_micros=50,
    )
    assert [a.agent for a in found.agents] == ["lead"]
    assert found.tools == (ToolStats("search", 1, 0, 1.0, 1.0),)
    assert found.providers == (ProviderStats("openai", 1, 0, 7.0, 7.0, 9_010, 50),)
    assert await stats(reader, tenant="initech") == Stats(tasks=TaskStats())


async def test_percentiles_of_the_latest_rows_counts_of_all(reader: SqlStatsReader) -> None:
    assert not (await stats(reader, max_rows=8)).sampled  # 8 model calls, 5 of the rest
    found = await stats(reader, max_rows=7)
    assert found.sampled
    assert found.providers[0] == ProviderStats(  # m1 (9 s, the oldest) left out
        "openai", 5, 0, 1.0, 3.0, total_tokens=770, cost_micros=200
    )
    assert found.tasks == (await stats(reader)).tasks
    two = await stats(reader, max_rows=2)
    assert two.sampled
    # The tasks that ended last: t5 (40 s, 1 call) and t4 (20 s, none).
    assert (two.tasks.tasks, two.tasks.completed, two.tasks.total_tokens) == (5, 3, 1_100)
    assert (two.tasks.p50_seconds, two.tasks.p95_seconds) == (20.0, 40.0)
    assert (two.tasks.p50_iterations, two.tasks.p95_iterations) == (0.0, 1.0)
    # The two latest timed tool calls: r7 (shell, 5 s) and r3 (search, 3 s).
    assert [(t.tool, t.calls, t.p50_seconds) for t in two.tools] == [
        ("search", 4, 3.0),
        ("shell", 3, 5.0),
        ("delegate", 1, 0.0),
    ]
