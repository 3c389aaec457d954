"""Push notifications survive the death of the replica delivering them: replica A holds
a config and keeps retrying (the receiver answers 503), A is killed with -9, the receiver
comes back, and replica B (Redis, PostgreSQL) takes the config over once A's lease has
expired and delivers every update, in order; a repeat carries the same event id."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import grpc
import pytest
from a2a.types import a2a_pb2_grpc

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2
from agentd_client.client import AgentClient
from tests.helpers import server_process
from tests.integration.test_a2a_push import KEYS, _send, _until_complete, _updates, receiver
from tests.integration.test_takeover import kill, replica_env
from tests.integration.toolsets import eventually

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
COMPLETED = tasks_pb2.TASK_STATUS_COMPLETED


async def _until(condition: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_kill_9_of_the_delivering_replica_loses_nothing(
    tmp_path: Path, prefix: str, database: str
) -> None:
    down, refused = threading.Event(), list[str]()
    down.set()
    with receiver(down=down, refused=refused) as (port, received):
        async with FakeOpenAIServer([{"text": "42"}]) as llm:
            env = replica_env(
                llm.base_url,
                prefix,
                database,
                AGENTD_A2A="true",
                AGENTD_KEYS=KEYS,  # B opens what A sealed
                AGENTD_A2A_PUSH_LEASE_SECONDS="2",
                AGENTD_A2A_PUSH_RETRY_CAP_SECONDS="0.5",
            )
            with server_process(tmp_path / "a", env) as first:
                async with grpc.aio.insecure_channel(first.address) as channel:
                    stub: Any = a2a_pb2_grpc.A2AServiceStub(channel)  # type: ignore[no-untyped-call]
                    sent = await stub.SendMessage(_send(f"http://127.0.0.1:{port}/hook", "k-1"))
                task_id = sent.task.id
                async with AgentClient(first.address) as on_a:  # the task ends on A

                    async def completed() -> bool:
                        return (await on_a.get_task(task_id)).status == COMPLETED

                    await eventually(completed, 30)
                await _until(lambda: len(refused) >= 3, 30)  # A holds it and retries
                with server_process(tmp_path / "b", env) as second:
                    kill(first)
                    down.clear()
                    await _until_complete(received, 60)
                    async with AgentClient(second.address) as native:
                        log = [e async for e in native.stream_task_events(task_id)]
    ids = [r["event_id"] for r in received]
    positions = [int(i.split(":")[1]) for i in ids]
    assert sorted(set(positions)) == _updates(log)  # everything, the first refused one too
    assert positions == sorted(positions)  # in order
    assert set(refused) <= set(ids)  # what A could not deliver, B did (same event ids)
