"""Two `agentd serve` processes sharing the machine's Redis: a task started on one is
followed, read, resumed and cancelled on the other, with no gap and no duplicate."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2
from agentd_client.client import AgentClient
from tests.contract.conftest import REDIS_URL
from tests.helpers import ServerProcess, llm_env, server_process

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


@contextmanager
def two_replicas(
    tmp_path: Path, base_url: str, prefix: str, database: str, **extra: str
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = llm_env(
        base_url,
        AGENTD_REDIS_URL=REDIS_URL,
        AGENTD_REDIS_PREFIX=prefix,
        AGENTD_DATABASE_URL=database,  # one PostgreSQL database for both
        **extra,
    )
    with (
        server_process(tmp_path / "a", env) as first,
        server_process(tmp_path / "b", env) as second,
    ):
        yield first, second


async def test_task_started_on_one_replica_is_followed_on_the_other(
    tmp_path: Path, prefix: str, database: str
) -> None:
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]},
        {"delay_seconds": 1.0, "text": "The answer is 42, slowly.", "chunks": 5},
    ]
    async with FakeOpenAIServer(replies) as llm:
        with two_replicas(tmp_path, llm.base_url, prefix, database) as (first, second):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                stream = a.execute("what is 6*7?", mode=FC)
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
                listed = await b.list_tasks()
                assert [t.task_id for t in listed.tasks] == [task_id]


async def test_cancel_on_one_replica_stops_the_work_on_the_other(
    tmp_path: Path, prefix: str, database: str
) -> None:
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
        {
            "delay_seconds": 3,
            "tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}],
        },
        {"text": "never asked for"},
    ]
    async with FakeOpenAIServer(replies) as llm:
        with two_replicas(tmp_path, llm.base_url, prefix, database) as (first, second):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                stream = a.execute("count slowly", mode=FC)
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


async def test_a_client_that_drops_at_several_points_gets_every_event_once(
    tmp_path: Path, prefix: str, database: str
) -> None:
    """Disconnect after 1 event, then again after 2, 3, 5 and 8 more, alternating replicas;
    each resume asks for what follows the last sequence received."""
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "2*21"}}]},
        {"delay_seconds": 0.3, "tool_calls": [{"name": "current_time", "arguments": {}}]},
        {"delay_seconds": 0.3, "text": "42 at the time shown, streamed in parts.", "chunks": 8},
    ]
    async with FakeOpenAIServer(replies) as llm:
        # One event per streamed chunk (no coalescing), so there are enough disconnect points.
        replicas = two_replicas(tmp_path, llm.base_url, prefix, database, AGENTD_DELTA_FLUSH_MS="0")
        with replicas as (first, second):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                stream = a.execute("what is 2*21, and when?", mode=FC)
                received = [await anext(stream)]
                await stream.aclose()  # type: ignore[attr-defined]
                task_id = received[0].task_id
                for turn, count in enumerate((2, 3, 5, 8, 10_000)):
                    client = (b, a)[turn % 2]
                    follow = client.stream_task_events(task_id, received[-1].sequence)
                    async for event in follow:
                        received.append(event)
                        count -= 1
                        if count == 0:
                            break
                    await follow.aclose()  # type: ignore[attr-defined]
                    if received[-1].WhichOneof("payload") == "status_changed" and (
                        received[-1].status_changed.current == tasks_pb2.TASK_STATUS_COMPLETED
                    ):
                        break
                assert [e.sequence for e in received] == list(range(1, len(received) + 1))
                assert received[-1].status_changed.current == tasks_pb2.TASK_STATUS_COMPLETED
                whole = [e async for e in b.stream_task_events(task_id)]
                assert whole == received  # message equality (map order is not fixed on the wire)
                assert len(received) > 1 + 2 + 3 + 5 + 8  # the last resume read to the end
