"""What the SQL layer and the Redis retention give a caller: task history after the live
state expired, audit rows for tool calls, and `agentd migrate`."""

from __future__ import annotations

import asyncio
import secrets
import sqlite3
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
import redis.asyncio as redis

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from tests.contract.conftest import REDIS_URL, drop_prefix
from tests.helpers import ROOT
from tests.integration.harness import final, harness


@pytest.mark.redis
async def test_finished_tasks_outlive_redis_retention_in_sql_history(tmp_path: Path) -> None:
    prefix = f"agentd-test:{secrets.token_hex(6)}:"
    try:
        async with harness(
            tmp_path,
            [{"text": "kept"}],
            redis_url=REDIS_URL,
            redis_prefix=prefix,
            retention_seconds=1,
        ) as h:
            events = await h.run("remember me", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING)
            task_id = events[0].task_id
            assert final(events).text == "kept"
            await asyncio.sleep(2.2)
            client = redis.Redis.from_url(REDIS_URL)
            assert not await client.exists(f"{prefix}task:{task_id}", f"{prefix}events:{task_id}")
            await client.aclose()
            task = await h.client.get_task(task_id)  # from the SQL history
            assert task.status == tasks_pb2.TASK_STATUS_COMPLETED
            assert task.final_answer == "kept"
            assert task.last_sequence == events[-1].sequence
            with pytest.raises(client_errors.EventsExpiredError) as expired:
                _ = [e async for e in h.client.stream_task_events(task_id)]
            assert expired.value.code is grpc.StatusCode.FAILED_PRECONDITION
            assert expired.value.metadata["last_sequence"] == str(events[-1].sequence)
            done = [e async for e in h.client.stream_task_events(task_id, events[-1].sequence)]
            assert done == []  # nothing was dropped that the caller lacks
            with pytest.raises(client_errors.TaskNotFoundError):
                _ = [e async for e in h.client.stream_task_events("task_never_was")]
    finally:
        client = redis.Redis.from_url(REDIS_URL)
        await drop_prefix(client, prefix)
        await client.aclose()


async def test_tool_calls_leave_audit_rows_in_sql(tmp_path: Path) -> None:
    async with harness(tmp_path, []) as h:
        result = await h.client.call_tool("calculator", {"expression": "1+1"})
        with pytest.raises(client_errors.ToolArgumentsInvalidError):
            await h.client.call_tool("calculator", {"nope": 1})
    rows = (
        sqlite3.connect(tmp_path / "agentd.db")
        .execute("select call_id, tool_name, outcome, decision from tool_call_audit order by id")
        .fetchall()
    )
    assert rows[0] == (result.call_id, "calculator", "ok", "allowed")
    assert rows[1][1:] == ("calculator", "invalid", "allowed")


def test_agentd_migrate_is_idempotent(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'm.db'}"
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-m", "server.commands.cli", "migrate", "--database-url", url],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert "up to date" in out.stdout
    tables = {
        r[0]
        for r in sqlite3.connect(tmp_path / "m.db").execute(
            "select name from sqlite_master where type='table'"
        )
    }
    assert {"task_history", "tool_call_audit", "alembic_version"} <= tables
