"""Budgets held across two `agentd serve` processes on Redis and PostgreSQL: a tenant's
budget of N tokens and 60 of its tasks started on both replicas spend at most N plus one
call per replica; every task refused for it carries the QuotaFailure naming it; another
tenant's tasks all complete; GetUsage and GetStats agree with what ran."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2, usage_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from records.keys import new_key
from stores.api_keys.sql import SqlKeyStore
from stores.sql.database import Database
from stores.sql.engine import migrate
from tests.contract.conftest import REDIS_URL
from tests.helpers import ServerProcess, llm_env, server_process

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
CALL_TOKENS = 120
"""Each model call's usage as the fake model reports it (100 prompt, 20 completion)."""
BUDGET = 3_000
TASKS = 60
ENDED = (
    tasks_pb2.TASK_STATUS_COMPLETED,
    tasks_pb2.TASK_STATUS_FAILED,
    tasks_pb2.TASK_STATUS_CANCELLED,
)


@contextmanager
def two_replicas(
    tmp_path: Path, base_url: str, prefix: str, database: str
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = llm_env(
        base_url,
        AGENTD_REDIS_URL=REDIS_URL,
        AGENTD_REDIS_PREFIX=prefix,
        AGENTD_DATABASE_URL=database,
        AGENTD_AUTH="on",
        AGENTD_LLM_MAX_TOKENS="64",  # a call's worst case: its prompt and 64
        AGENTD_BUDGET_REFRESH_SECONDS="0.5",
    )
    with (
        server_process(tmp_path / "a", env) as first,
        server_process(tmp_path / "b", env) as second,
    ):
        yield first, second


async def keys(database: str) -> dict[str, str]:
    """API keys, written before the servers start: acme's admin and user, globex's user."""
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


async def ended(client: AgentClient, task_id: str) -> tasks_pb2.Task:
    async with asyncio.timeout(60):
        while True:
            task = await client.get_task(task_id)
            if task.status in ENDED:
                return task
            await asyncio.sleep(0.05)


async def test_a_tenant_budget_holds_across_two_replicas(
    tmp_path: Path, prefix: str, database: str
) -> None:
    reply = {"text": "done", "usage": {"prompt_tokens": 100, "completion_tokens": 20}}
    secret = await keys(database)
    async with FakeOpenAIServer([{**reply, "repeat": -1}]) as llm:
        with two_replicas(tmp_path, llm.base_url, prefix, database) as (first, second):
            admin = AgentClient(first.address, api_key=secret["admin"], timeout=30)
            acme = [
                AgentClient(s.address, api_key=secret["acme"], timeout=30) for s in (first, second)
            ]
            globex = AgentClient(second.address, api_key=secret["globex"], timeout=30)
            async with admin, acme[0], acme[1], globex:
                budget = await admin.create_budget(
                    usage_pb2.BUDGET_SCOPE_TENANT,
                    usage_pb2.BUDGET_UNIT_TOKENS,
                    usage_pb2.BUDGET_WINDOW_DAY,
                    limit=BUDGET,
                )
                await asyncio.sleep(0.6)  # past the other replica's cache of acme's budgets
                turn = asyncio.Semaphore(12)
                refused: list[client_errors.BudgetExhaustedError] = []
                started: list[str] = []

                async def start(index: int) -> None:
                    async with turn:
                        try:
                            task = await acme[index % 2].start_task(
                                f"task {index}", tools=["calculator"], mode=FC
                            )
                        except client_errors.BudgetExhaustedError as error:
                            refused.append(error)
                            return
                        started.append(task.task_id)
                        await ended(acme[index % 2], task.task_id)

                others = [
                    await globex.start_task(f"other {i}", tools=["calculator"], mode=FC)
                    for i in range(5)
                ]
                await asyncio.gather(*(start(i) for i in range(TASKS)))
                tasks = [await acme[0].get_task(t) for t in started]
                outcomes = Counter(
                    (tasks_pb2.TaskStatus.Name(t.status), tasks_pb2.StopReason.Name(t.stop_reason))
                    for t in tasks
                )
                globex_ended = [await ended(globex, t.task_id) for t in others]

                # every task ran to its answer or stopped for the budget: nothing else
                assert set(outcomes) <= {
                    ("TASK_STATUS_COMPLETED", "STOP_REASON_FINAL_ANSWER"),
                    ("TASK_STATUS_FAILED", "STOP_REASON_BUDGET_EXHAUSTED"),
                }, outcomes
                assert refused, f"the budget never refused a task: {outcomes}"
                assert len(refused) + len(started) == TASKS
                for error in refused:
                    assert error.reason == "BUDGET_EXHAUSTED"
                    assert error.code.name == "RESOURCE_EXHAUSTED"
                    assert [v.field for v in error.quota_violations] == [
                        f"budget:{budget.budget_id}"
                    ]
                    assert error.retry_after_seconds is not None  # when the day starts afresh
                assert all(t.status == tasks_pb2.TASK_STATUS_COMPLETED for t in globex_ended)

                # the ledger: within N plus one call per replica
                await asyncio.sleep(0.5)  # the last usage rows are written beside the runs
                usage = await admin.get_usage(group_by=[usage_pb2.USAGE_GROUP_TENANT])
                assert [r.tenant for r in usage.rows] == ["acme"]
                assert usage.total.total_tokens <= BUDGET + 2 * CALL_TOKENS
                completed = outcomes[("TASK_STATUS_COMPLETED", "STOP_REASON_FINAL_ANSWER")]
                assert usage.total.calls == completed  # one call per answer, none for a stop
                assert usage.total.total_tokens <= completed * CALL_TOKENS  # a reply may be cut
                listed = await admin.list_budgets()
                [standing] = listed.budgets
                assert standing.spent == usage.total.total_tokens
                assert standing.reserved == 0

                # statistics agree with the tasks that ran
                stats = await admin.get_stats()
                by_reason = {
                    tasks_pb2.StopReason.Name(r.stop_reason): r.tasks
                    for r in stats.tasks.stop_reasons
                }
                stopped = outcomes[("TASK_STATUS_FAILED", "STOP_REASON_BUDGET_EXHAUSTED")]
                assert stats.tasks.tasks == len(started)
                assert by_reason.get("STOP_REASON_FINAL_ANSWER", 0) == completed
                assert by_reason.get("STOP_REASON_BUDGET_EXHAUSTED", 0) == stopped
                assert stats.tasks.total_tokens == usage.total.total_tokens
