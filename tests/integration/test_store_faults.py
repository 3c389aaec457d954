"""A store out of reach is never INTERNAL: calls answer UNAVAILABLE with a retry delay,
a task it hits still ends (FAILED, STORE_UNAVAILABLE) with its log closed, and a stream
whose reads fail ends UNAVAILABLE so the client resumes it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis.exceptions

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2
from agentd_client.errors import StoreUnavailableError
from records import events as ev
from server.settings import Settings
from stores.tasks.memory import InMemoryTaskStore
from tests.integration.harness import assert_well_formed, kinds, model_settings
from tests.servers import QUIET, running_server, settings_in

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
REPLIES: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]},
    {"text": "It is 42.", "chunks": 2},
]


class FlakyStore(InMemoryTaskStore):
    """An in-process store whose appends or reads fail on command, as Redis would."""

    def __init__(self) -> None:
        super().__init__()
        self.failing_appends = 0
        self.fail_appends_after = 10**9
        self.fail_reads_after: int | None = None
        self.appends = 0

    async def append_event(self, task_id: str, trace_id: str, payload: ev.EventPayload) -> Any:
        self.appends += 1
        if self.appends > self.fail_appends_after and self.failing_appends > 0:
            self.failing_appends -= 1
            raise redis.exceptions.ConnectionError("Connection reset by peer")
        return await super().append_event(task_id, trace_id, payload)

    async def read_events(
        self, tenant: str, task_id: str, after_sequence: int = 0
    ) -> AsyncIterator[Any]:
        count = 0
        async for event in super().read_events(tenant, task_id, after_sequence):
            if self.fail_reads_after is not None and count >= self.fail_reads_after:
                self.fail_reads_after = None  # once
                raise redis.exceptions.TimeoutError("Timeout reading from 127.0.0.1:6379")
            count += 1
            yield event


def _settings(tmp_path: Path, llm: FakeOpenAIServer, **extra: Any) -> Settings:
    return settings_in(
        tmp_path, **{**QUIET, **model_settings(llm), "grace_period_seconds": 0.5, **extra}
    )


async def test_execute_with_redis_out_of_reach_is_unavailable_with_a_retry_delay(
    tmp_path: Path,
) -> None:
    async with FakeOpenAIServer(REPLIES) as llm:
        # Nothing listens on port 1 of loopback: every connection is refused.
        settings = _settings(tmp_path, llm, redis_url="redis://127.0.0.1:1/0")
        async with running_server(settings) as running, running.client(timeout=30) as client:
            with pytest.raises(StoreUnavailableError) as caught:
                [e async for e in client.execute("what is 6*7?", mode=FC)]
            with pytest.raises(StoreUnavailableError):
                await client.get_task("task_0123456789abcdef01234567")
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    assert caught.value.reason == "STORE_UNAVAILABLE"
    assert caught.value.retry_after_seconds is not None
    assert "Redis" in str(caught.value)


async def test_a_task_whose_store_fails_still_ends_and_closes_its_log(tmp_path: Path) -> None:
    store = FlakyStore()
    store.fail_appends_after = 4  # after the first events: mid-task
    store.failing_appends = 2  # then the store comes back (the task's end is retried)
    async with (
        FakeOpenAIServer(REPLIES) as llm,
        running_server(_settings(tmp_path, llm), tasks=store) as running,
        running.client(timeout=30) as client,
    ):
        events = [e async for e in client.execute("what is 6*7?", mode=FC)]
        task = await client.get_task(events[0].task_id)
    assert_well_formed(events, tasks_pb2.TASK_STATUS_FAILED)
    assert "error" in kinds(events)
    assert task.status == tasks_pb2.TASK_STATUS_FAILED
    assert task.error.reason == "STORE_UNAVAILABLE"


async def test_a_stream_whose_reads_fail_ends_unavailable_and_resumes(tmp_path: Path) -> None:
    store = FlakyStore()
    store.fail_reads_after = 3
    async with (
        FakeOpenAIServer(REPLIES) as llm,
        running_server(_settings(tmp_path, llm), tasks=store) as running,
        running.client(timeout=30) as client,
    ):
        received: list[Any] = []

        async def follow() -> None:
            async for event in client.execute("what is 6*7?", mode=FC):
                received.append(event)

        with pytest.raises(StoreUnavailableError) as caught:
            await follow()
        rest = [
            e async for e in client.stream_task_events(received[0].task_id, received[-1].sequence)
        ]
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    assert caught.value.retry_after_seconds is not None
    assert len(received) == 3
    assert_well_formed(received + rest)
