"""Streams end the way they should through every interceptor: Health/Watch (what grpc-go's
client-side health checking uses) streams, and a stream the client leaves is audited
CANCELLED, with no raw traceback in the server's output."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from tests.integration.trust import trusted


@pytest.mark.parametrize("auth", ["on", "off"])
async def test_health_watch_answers_through_the_interceptors(tmp_path: Path, auth: str) -> None:
    async with (
        trusted(tmp_path, auth=auth) as t,
        grpc.aio.insecure_channel(t.address) as channel,
    ):
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", "agentd.v1.AgentService"):
            watch = stub.Watch(health_pb2.HealthCheckRequest(service=service), timeout=10)
            first = await anext(aiter(watch))
            assert first.status == health_pb2.HealthCheckResponse.SERVING
            watch.cancel()
        unknown = stub.Watch(health_pb2.HealthCheckRequest(service="nope"), timeout=10)
        assert (await anext(aiter(unknown))).status == (
            health_pb2.HealthCheckResponse.SERVICE_UNKNOWN
        )
        unknown.cancel()
        # Watch is a probe: counted in metrics, never audited.
        assert [r for r in await t.rpc_records() if r.method.startswith("/grpc.health")] == []


@pytest.mark.parametrize("method", ["Execute", "StreamTaskEvents"])
async def test_a_stream_the_client_leaves_is_audited_cancelled(
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    method: str,
) -> None:
    replies = [{"delay_seconds": 30, "text": "late"}]
    async with trusted(tmp_path, replies, tool_permission="write") as t:
        alice = await t.client("acme", "alice")
        metadata = alice._metadata
        async with grpc.aio.insecure_channel(t.address) as channel:
            stub = pb_grpc.AgentServiceStub(channel)
            task = await stub.StartTask(
                pb.ExecuteRequest(task="wait for a slow model"), metadata=metadata, timeout=20
            )
            for _ in range(3):  # a gateway whose users keep leaving
                stream: Any
                if method == "Execute":
                    stream = stub.Execute(
                        pb.ExecuteRequest(task="wait for a slow model"),
                        metadata=metadata,
                        timeout=20,
                    )
                else:
                    stream = stub.StreamTaskEvents(
                        pb.StreamTaskEventsRequest(task_id=task.task_id),
                        metadata=metadata,
                        timeout=20,
                    )
                assert (await anext(aiter(stream))).task_id
                await asyncio.sleep(0.05)
                stream.cancel()
        for _ in range(100):  # the record is written once the server sees the stream end
            records = [r for r in await t.rpc_records() if r.method.endswith(f"/{method}")]
            if len(records) == 3:
                break
            await asyncio.sleep(0.05)
        assert [r.code for r in records] == ["CANCELLED"] * 3
        assert all(r.task_id for r in records)
        await asyncio.sleep(0.2)  # let the server finish closing what the clients left
    output = capfd.readouterr()
    assert "Traceback (most recent call last)" not in output.out + output.err
    assert "was created in a different Context" not in output.out + output.err
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert errors == [], [r.getMessage() for r in errors]


async def test_a_reader_that_leaves_mid_log_is_audited_cancelled(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """The client leaves while the server is busy writing it a long log: the stream
    still ends CANCELLED, closed in its own context, with nothing logged as an error."""
    replies = [{"text": "word " * 190_000, "chunks": 4_000}]
    async with trusted(tmp_path, replies, tool_permission="write", delta_flush_ms=0) as t:
        alice = await t.client("acme", "alice")
        async with grpc.aio.insecure_channel(t.address) as channel:
            stub = pb_grpc.AgentServiceStub(channel)
            task = await stub.StartTask(
                pb.ExecuteRequest(task="say a lot"), metadata=alice._metadata, timeout=20
            )
            for _ in range(200):  # the whole answer is in the log
                if (await alice.get_task(task.task_id)).final_answer:
                    break
                await asyncio.sleep(0.05)
            stream = stub.StreamTaskEvents(
                pb.StreamTaskEventsRequest(task_id=task.task_id),
                metadata=alice._metadata,
                timeout=20,
            )
            read = 0
            async for _ in stream:  # leave while the server is busy writing
                read += 1
                if read == 100:
                    break
            stream.cancel()
            await asyncio.sleep(0.5)
        for _ in range(400):
            records = [r for r in await t.rpc_records() if r.method.endswith("/StreamTaskEvents")]
            if records:
                break
            await asyncio.sleep(0.05)
        assert [r.code for r in records] == ["CANCELLED"]
    output = capfd.readouterr()
    assert "Traceback (most recent call last)" not in output.out + output.err
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert errors == [], [r.getMessage() for r in errors]
