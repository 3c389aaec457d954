"""What a gateway relies on: StartTask, heartbeats on quiet streams, a keepalive policy
that lets clients ping, labels, the trace id and the answering model on the task, and
unknown enum values refused."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import pytest

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import tasks_pb2
from agentd_client.client import AgentClient
from tests.integration.harness import assert_well_formed, final, harness, of_kind

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
CALC = {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]}


async def test_start_task_then_stream_from_zero_gives_the_whole_log(tmp_path: Path) -> None:
    replies: list[dict[str, Any]] = [CALC, {"text": "It is 42.", "delay_seconds": 0.3}]
    async with harness(tmp_path, replies) as h:
        started = await h.client.start_task("what is 6*7?", mode=FC, labels={"team": "a"})
        events = [e async for e in h.client.stream_task_events(started.task_id)]
        task = await h.client.get_task(started.task_id)
    assert started.status == tasks_pb2.TASK_STATUS_PENDING
    assert len(started.trace_id) == 32
    assert_well_formed(events)
    assert final(events).text == "It is 42."
    assert task.trace_id == started.trace_id == events[0].trace_id
    assert dict(task.labels) == {"team": "a"}
    assert not task.partial


async def test_start_task_twice_with_one_idempotency_key_is_one_task(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "once", "repeat": -1}]) as h:
        first = await h.client.start_task("hello", mode=FC, idempotency_key="k-1")
        second = await h.client.start_task("hello", mode=FC, idempotency_key="k-1")
        events = [e async for e in h.client.stream_task_events(first.task_id)]
        listed = await h.client.list_tasks()
    assert first.task_id == second.task_id
    assert_well_formed(events)
    assert [t.task_id for t in listed.tasks] == [first.task_id]
    assert len(h.llm.requests) == 1


async def test_a_quiet_stream_gets_heartbeats_that_are_not_in_the_log(tmp_path: Path) -> None:
    replies = [{"text": "slow answer", "delay_seconds": 1.2}]
    async with harness(tmp_path, replies, heartbeat_seconds=0.2) as h:
        live = [e async for e in h.client.execute("be slow", mode=FC, heartbeats=True)]
        replayed = [e async for e in h.client.stream_task_events(live[0].task_id)]
        skipped = [e async for e in h.client.execute("be slow", mode=FC)]  # default: skipped
    beats = [e for e in live if e.WhichOneof("payload") == "heartbeat"]
    assert len(beats) >= 3
    assert all(b.sequence == 0 and b.task_id == live[0].task_id for b in beats)
    assert {b.heartbeat.status for b in beats} == {tasks_pb2.TASK_STATUS_RUNNING}
    log = [e for e in live if e.sequence]
    assert_well_formed(log)
    assert replayed == log  # heartbeats are never part of the log
    assert all(e.sequence for e in skipped)


async def test_usage_names_the_model_that_answered(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "hi"}]) as h:
        events = await h.run("hello", mode=FC)
    assert [u.model for u in of_kind(events, "usage")] == ["fake-model"]


async def test_list_tasks_filters_by_labels(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "ok", "repeat": -1}]) as h:
        for team, env in (("billing", "prod"), ("billing", "test"), ("search", "prod")):
            await h.run("x", mode=FC, labels={"team": team, "env": env})
        both = await h.client.list_tasks(labels={"team": "billing", "env": "prod"})
        billing = await h.client.list_tasks(labels={"team": "billing"})
        stub = h.running.stub
        with pytest.raises(grpc.aio.AioRpcError) as bad:
            await stub.ListTasks(pb.ListTasksRequest(labels={"Team Name": "x"}))
    assert [dict(t.labels) for t in both.tasks] == [{"team": "billing", "env": "prod"}]
    assert len(billing.tasks) == 2
    assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_unknown_enum_values_are_invalid_arguments(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "never"}]) as h:
        stub = h.running.stub
        with pytest.raises(grpc.aio.AioRpcError) as mode:
            await stub.StartTask(pb.ExecuteRequest(task="x", mode=42))  # type: ignore[arg-type]
        with pytest.raises(grpc.aio.AioRpcError) as status:
            await stub.ListTasks(pb.ListTasksRequest(statuses=[99]))  # type: ignore[list-item]
    assert mode.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "mode" in (mode.value.details() or "")
    assert status.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert h.llm.requests == []


async def test_a_client_pinging_often_keeps_a_silent_stream_open(tmp_path: Path) -> None:
    """A client pings every second on a stream silent for 6 s (a slow model, no heartbeats):
    the server's keepalive policy accepts the pings and the stream reaches its end."""
    replies = [{"text": "after a long silence", "delay_seconds": 6}]
    options = [
        ("grpc.keepalive_time_ms", 1000),
        ("grpc.keepalive_timeout_ms", 5000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),
    ]
    async with harness(tmp_path, replies, heartbeat_seconds=0, keepalive_min_ping_seconds=1) as h:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{h.server.port}", options=options)
        async with AgentClient(channel=channel) as client:
            async with asyncio.timeout(30):
                events = [e async for e in client.execute("wait", mode=FC)]
        await channel.close(None)
    assert_well_formed(events)
    assert final(events).text == "after a long silence"
