"""Two `agentd serve` processes sharing the machine's Redis: a task started on one is
followed, read and resumed on the other, with no gap and no duplicate."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as redis

from agentd.v1 import tasks_pb2
from clients.client import AgentClient
from tests.contract.conftest import REDIS_URL, drop_prefix
from tests.helpers import ROOT, server_process

pytestmark = pytest.mark.redis


@pytest.fixture
async def prefix() -> AsyncIterator[str]:
    value = f"agentd-test:{secrets.token_hex(6)}:"
    yield value
    client = redis.Redis.from_url(REDIS_URL)
    await drop_prefix(client, value)
    await client.aclose()


async def test_task_started_on_one_replica_is_followed_on_the_other(
    tmp_path: Path, prefix: str
) -> None:
    script = tmp_path / "script.json"
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]},
        {"delay_seconds": 1.0, "text": "The answer is 42, slowly.", "chunks": 5},
    ]
    script.write_text(json.dumps(replies))
    fake = subprocess.Popen(  # noqa: ASYNC220 - started once; its output is read in a thread
        [sys.executable, "-m", "clients.cli", "fake-llm", "--script", str(script), "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake.stdout is not None
        line = await asyncio.to_thread(fake.stdout.readline)
        base_url = re.search(r"on (http://\S+) ", line)
        assert base_url, line
        env = {
            "AGENTD_REDIS_URL": REDIS_URL,
            "AGENTD_REDIS_PREFIX": prefix,
            "AGENTD_LLM_BASE_URL": base_url.group(1),
            "AGENTD_LLM_MODEL": "fake",
            "AGENTD_LLM_API_KEY": "k",
        }
        with (
            server_process(tmp_path / "a", env) as first,
            server_process(tmp_path / "b", env) as second,
        ):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                stream = a.execute("what is 6*7?", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING)
                head = [await anext(stream) for _ in range(4)]
                await stream.aclose()  # type: ignore[attr-defined]  # the client leaves replica A
                task_id = head[0].task_id
                assert (await b.get_task(task_id)).status == tasks_pb2.TASK_STATUS_RUNNING
                rest = [
                    e async for e in b.stream_task_events(task_id, after_sequence=head[-1].sequence)
                ]
                every = head + rest
                assert [e.sequence for e in every] == list(range(1, len(every) + 1))
                assert every[-1].status_changed.current == tasks_pb2.TASK_STATUS_COMPLETED
                answer = next(
                    e.final_answer for e in every if e.WhichOneof("payload") == "final_answer"
                )
                assert answer.text == "The answer is 42, slowly."
                from_a = [e.sequence async for e in a.stream_task_events(task_id)]
                from_b = [e.sequence async for e in b.stream_task_events(task_id)]
                assert from_a == from_b == [e.sequence for e in every]
                final_b = await b.get_task(task_id)
                assert final_b.final_answer == answer.text
                assert final_b.last_sequence == every[-1].sequence
    finally:
        fake.send_signal(signal.SIGTERM)
        await asyncio.to_thread(fake.wait, 10)
        if fake.stdout is not None:
            fake.stdout.close()


async def test_cancel_on_one_replica_stops_the_work_on_the_other(
    tmp_path: Path, prefix: str
) -> None:
    from agent.llm.fake_server import FakeOpenAIServer

    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
        {
            "delay_seconds": 3,
            "tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}],
        },
        {"text": "never asked for"},
    ]
    async with FakeOpenAIServer(replies) as llm:
        env = {
            "AGENTD_REDIS_URL": REDIS_URL,
            "AGENTD_REDIS_PREFIX": prefix,
            "AGENTD_LLM_BASE_URL": llm.base_url,
            "AGENTD_LLM_MODEL": "fake",
            "AGENTD_LLM_API_KEY": "k",
        }
        with (
            server_process(tmp_path / "a", env) as first,
            server_process(tmp_path / "b", env) as second,
        ):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                stream = a.execute("count slowly", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING)
                head = [await anext(stream) for _ in range(3)]
                for _ in range(500):  # until replica A waits on the slow reply (10 s at most)
                    if len(llm.requests) >= 2:
                        break
                    await asyncio.sleep(0.02)
                started = asyncio.get_running_loop().time()
                cancelled = await b.cancel_task(head[0].task_id, "stop from B")
                assert asyncio.get_running_loop().time() - started < 1.0
                assert cancelled.status == tasks_pb2.TASK_STATUS_CANCELLED
                rest = [e async for e in stream]
                assert rest[-1].status_changed.current == tasks_pb2.TASK_STATUS_CANCELLED
                await asyncio.sleep(3.5)  # past the slow reply: A must not have gone on
                assert len(llm.requests) == 2
                assert (await a.get_task(head[0].task_id)).stop_detail == "stop from B"
