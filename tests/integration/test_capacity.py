"""Capacity: a full process refuses before touching any store; a burst beyond the model-
call cap waits its turn instead of timing out; one tenant cannot take every place."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import tasks_pb2
from agentd_client.errors import ResourceExhaustedError
from stores.tasks.memory import InMemoryTaskStore
from tests.integration.harness import assert_well_formed, final, harness
from tests.servers import running_server

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


class CountingStore(InMemoryTaskStore):
    """The in-process store, counting the calls a new Execute makes (create, read)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def create(self, task: Any) -> None:
        self.calls += 1
        await super().create(task)

    def read_events(self, tenant: str, task_id: str, after_sequence: int = 0) -> Any:
        self.calls += 1
        return super().read_events(tenant, task_id, after_sequence)


async def test_a_full_process_refuses_before_touching_a_store(tmp_path: Path) -> None:
    replies = [{"text": "slow", "delay_seconds": 3}]
    async with harness(tmp_path, replies, max_running_tasks=1, max_queued_tasks=0) as h:
        await h.server.shutdown(grace=0)  # restart it on a store that counts
        store = CountingStore()
        async with (
            running_server(h.server.settings, tasks=store) as restarted,
            restarted.client(timeout=10) as client,
        ):
            running = client.execute("occupy the only slot", mode=FC)
            await anext(running)
            before = store.calls
            with pytest.raises(ResourceExhaustedError) as refused:
                await anext(client.execute("one too many", mode=FC))
            after = store.calls
            await running.aclose()  # type: ignore[attr-defined]
    assert after == before  # refused without a single store call
    assert refused.value.retry_after_seconds is not None


async def test_a_burst_beyond_the_model_call_cap_waits_its_turn(tmp_path: Path) -> None:
    """One model call at a time, five tasks at once, each call 0.3 s, a step limit of
    0.5 s: the last task waits 1.2 s for its turn, and still completes."""
    replies = [{"text": "done", "delay_seconds": 0.3, "repeat": -1}]
    async with harness(
        tmp_path, replies, max_concurrent_llm_calls=1, step_timeout_seconds=0.5
    ) as h:
        runs = await asyncio.gather(*(h.run(f"task {n}", mode=FC) for n in range(5)))
    for events in runs:
        assert_well_formed(events)
        assert final(events).text == "done"


async def test_one_tenant_cannot_take_every_queue_place(tmp_path: Path) -> None:
    replies = [{"text": "slow", "delay_seconds": 5, "repeat": -1}]
    async with harness(
        tmp_path, replies, max_running_tasks=1, max_queued_tasks=4, tenant_queue_share=0.5
    ) as h:
        streams = [h.client.execute(f"task {n}", mode=FC) for n in range(3)]
        await anext(streams[0])
        await anext(streams[0])  # RUNNING: it holds the only slot
        for stream in streams[1:]:  # two wait: this tenant's half of the queue
            await anext(stream)
        with pytest.raises(ResourceExhaustedError, match="share"):
            await anext(h.client.execute("a fourth", mode=FC))
        for stream in streams:
            await stream.aclose()  # type: ignore[attr-defined]
