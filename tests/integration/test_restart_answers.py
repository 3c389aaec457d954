"""Finished tasks answer the same before and after the server restarts.

Once the live store has let a finished task go (the in-process store at a restart, Redis
after the retention), GetTask, ListTasks and CancelTask read the task's history row:
CancelTask of a finished task is FAILED_PRECONDITION (TASK_ALREADY_TERMINAL) both before
and after, never NOT_FOUND, and the update time ListTasks shows is the task's end, as
GetTask shows it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from tests.contract.conftest import REDIS_URL
from tests.integration.harness import model_settings
from tests.servers import QUIET, running_server, settings_in

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


async def _answers(client: AgentClient, task_ids: list[str]) -> list[tuple[Any, ...]]:
    """What GetTask, ListTasks and CancelTask answer of each task."""
    listed = {t.task_id: t for t in (await client.list_tasks(page_size=50)).tasks}
    seen = []
    for task_id in task_ids:
        got = await client.get_task(task_id)
        with pytest.raises(client_errors.AgentdError) as refused:
            await client.cancel_task(task_id, "too late")
        row = listed[task_id]
        assert row.update_time == got.update_time, "ListTasks and GetTask disagree"
        assert got.update_time.ToDatetime() > got.create_time.ToDatetime()
        seen.append(
            (
                got.status,
                got.final_answer,
                got.stop_reason,
                got.update_time.ToJsonString(),
                row.status,
                refused.value.code,
                refused.value.reason,
            )
        )
    return seen


async def _finish_two(client: AgentClient) -> list[str]:
    """One task that completes, one that is cancelled; their ids once both ended."""
    done = [e async for e in client.execute("say hello", mode=FC)]
    slow = await client.start_task("think slowly", mode=FC)
    await asyncio.sleep(0.3)
    await client.cancel_task(slow.task_id, "changed my mind")
    return [done[0].task_id, slow.task_id]


REPLIES: list[dict[str, Any]] = [{"text": "hello"}, {"delay_seconds": 30, "text": "never"}]


async def test_on_sqlite_answers_survive_a_restart(tmp_path: Path) -> None:
    async with FakeOpenAIServer(REPLIES) as llm:
        settings = settings_in(tmp_path, **QUIET, **model_settings(llm), grace_period_seconds=0.5)
        async with running_server(settings) as first, first.client(timeout=10) as client:
            task_ids = await _finish_two(client)
            before = await _answers(client, task_ids)
        async with running_server(settings) as second, second.client(timeout=10) as client:
            after = await _answers(client, task_ids)
    assert before == after
    assert [a[5] for a in after] == [grpc.StatusCode.FAILED_PRECONDITION] * 2
    assert [a[6] for a in after] == ["TASK_ALREADY_TERMINAL"] * 2


@pytest.mark.redis
@pytest.mark.postgres
async def test_on_redis_and_postgres_answers_survive_a_restart_and_the_retention(
    tmp_path: Path, prefix: str, database: str
) -> None:
    async with FakeOpenAIServer(REPLIES) as llm:
        settings = settings_in(
            tmp_path,
            **QUIET,
            **model_settings(llm),
            grace_period_seconds=0.5,
            redis_url=REDIS_URL,
            redis_prefix=prefix,
            database_url=database,
            retention_seconds=1,
        )
        async with running_server(settings) as first, first.client(timeout=10) as client:
            task_ids = await _finish_two(client)
            before = await _answers(client, task_ids)
        await asyncio.sleep(1.5)  # the live state expires: only the history has them
        async with running_server(settings) as second, second.client(timeout=10) as client:
            after = await _answers(client, task_ids)
    assert before == after
    assert [a[5] for a in after] == [grpc.StatusCode.FAILED_PRECONDITION] * 2
