"""Idempotency keys on Execute and CallTool, through the real server and client."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from server.settings import Settings
from tests.integration.harness import harness

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


async def test_execute_retry_returns_the_same_task_and_replays_its_stream(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "once"}]) as h:
        first = await h.run("do it once", mode=FC, idempotency_key="req-42")
        again = await h.run("do it once", mode=FC, idempotency_key="req-42")
        assert again[0].task_id == first[0].task_id
        assert [(e.sequence, e.WhichOneof("payload")) for e in again] == [
            (e.sequence, e.WhichOneof("payload")) for e in first
        ]
        assert len(h.llm.requests) == 1  # the model ran once
        with pytest.raises(client_errors.IdempotencyConflictError) as info:
            await h.run("something else", mode=FC, idempotency_key="req-42")
        assert info.value.code is grpc.StatusCode.ALREADY_EXISTS
        assert info.value.reason == "IDEMPOTENCY_CONFLICT"
        with pytest.raises(client_errors.InvalidArgumentError) as too_long:
            await h.run("do it once", mode=FC, idempotency_key="k" * 129)
        assert too_long.value.field_violations[0].field == "idempotency_key"
        other = await h.run("do it once", mode=FC, idempotency_key="req-43")
        assert other[0].task_id != first[0].task_id


async def test_call_tool_retries_do_not_repeat_side_effects(
    client: AgentClient, settings: Settings
) -> None:
    arguments = {"path": "log.txt", "content": "line\n", "mode": "append"}
    first = await client.call_tool("write_file", arguments, idempotency_key="append-1")
    retried = await client.call_tool("write_file", arguments, idempotency_key="append-1")
    assert retried.call_id == first.call_id
    assert (settings.workspace_dir / "log.txt").read_text() == "line\n"
    concurrent = await asyncio.gather(
        *(client.call_tool("write_file", arguments, idempotency_key="append-2") for _ in range(5))
    )
    assert len({r.call_id for r in concurrent}) == 1
    assert (settings.workspace_dir / "log.txt").read_text() == "line\nline\n"
    with pytest.raises(client_errors.IdempotencyConflictError):
        await client.call_tool(
            "write_file", {**arguments, "content": "other"}, idempotency_key="append-1"
        )
    await client.call_tool("write_file", arguments)  # no key: runs every time
    assert (settings.workspace_dir / "log.txt").read_text() == "line\nline\nline\n"


async def test_a_refused_call_does_not_burn_its_key(client: AgentClient) -> None:
    with pytest.raises(client_errors.ToolArgumentsInvalidError):
        await client.call_tool("calculator", {"bad": 1}, idempotency_key="k1")
    fixed = await client.call_tool("calculator", {"expression": "6*7"}, idempotency_key="k1")
    assert fixed.text == "42"
    again = await client.call_tool("calculator", {"expression": "6*7"}, idempotency_key="k1")
    assert again.call_id == fixed.call_id


async def test_oversize_keys_are_refused(client: AgentClient) -> None:
    with pytest.raises(client_errors.InvalidArgumentError) as info:
        await client.call_tool("calculator", {"expression": "1"}, idempotency_key="k" * 129)
    assert info.value.field_violations[0].field == "idempotency_key"
