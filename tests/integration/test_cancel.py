"""CancelTask against running tasks: during a model call and during a slow tool."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest

from agentd.v1 import events_pb2, tasks_pb2
from agentd_client import errors as client_errors
from tests.helpers import http_server
from tests.integration.harness import Harness, assert_well_formed, harness, of_kind

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


async def _start_and_cancel(
    h: Harness, task: str, after: float
) -> tuple[list[events_pb2.TaskEvent], float, tasks_pb2.Task]:
    events: list[events_pb2.TaskEvent] = []
    first = asyncio.Event()

    async def follow() -> None:
        async for event in h.client.execute(task, mode=FC):
            events.append(event)
            first.set()

    reader = asyncio.create_task(follow())
    await asyncio.wait_for(first.wait(), 5)
    await asyncio.sleep(after)
    started = time.monotonic()
    cancelled = await h.client.cancel_task(events[0].task_id, "user changed their mind")
    took = time.monotonic() - started
    await asyncio.wait_for(reader, 5)
    return events, took, cancelled


async def test_cancel_during_a_model_call(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"delay_seconds": 10, "text": "too late"}]) as h:
        events, took, task = await _start_and_cancel(h, "slow thinking", 0.3)
        assert took < 1.0
        assert task.status == tasks_pb2.TASK_STATUS_CANCELLED
        assert task.stop_reason == tasks_pb2.STOP_REASON_CANCELLED
        assert task.stop_detail == "user changed their mind"
        assert_well_formed(events, tasks_pb2.TASK_STATUS_CANCELLED)
        assert not of_kind(events, "final_answer")
        with pytest.raises(client_errors.TaskAlreadyTerminalError) as info:
            await h.client.cancel_task(events[0].task_id)
        assert info.value.code is grpc.StatusCode.FAILED_PRECONDITION
        await asyncio.sleep(0.3)
        assert (
            await h.client.get_task(events[0].task_id)
        ).status == tasks_pb2.TASK_STATUS_CANCELLED


async def test_cancel_during_a_slow_tool_keeps_partial_results(tmp_path: Path) -> None:
    with http_server() as url:
        replies = [
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]},
            {"tool_calls": [{"name": "http_request", "arguments": {"url": f"{url}/slow=10"}}]},
            {"text": "never"},
        ]
        async with harness(
            tmp_path, replies, http_allowed_networks=["127.0.0.1/32"], http_timeout_seconds=20
        ) as h:
            events, took, task = await _start_and_cancel(h, "compute then fetch", 0.5)
            assert took < 1.0
            assert task.status == tasks_pb2.TASK_STATUS_CANCELLED
            assert "calculator" in task.final_answer  # partial results are kept
            assert [s.tool_name for s in of_kind(events, "tool_call_started")] == [
                "calculator",
                "http_request",
            ]
            assert len(of_kind(events, "tool_call_finished")) == 1
            assert len(h.llm.requests) == 2


async def test_stream_task_events_replays_and_follows(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
        {"delay_seconds": 0.5, "text": "two"},
    ]
    async with harness(tmp_path, replies) as h:
        stream = h.client.execute("add", mode=FC)
        first = [await anext(stream) for _ in range(3)]
        await stream.aclose()  # type: ignore[attr-defined]  # the client leaves; the task goes on
        rest = [
            e
            async for e in h.client.stream_task_events(
                first[0].task_id, after_sequence=first[-1].sequence
            )
        ]
        every = first + rest
        assert_well_formed(every)
        again = [e async for e in h.client.stream_task_events(first[0].task_id)]
        assert [e.sequence for e in again] == [e.sequence for e in every]
        tail = [
            e
            async for e in h.client.stream_task_events(
                first[0].task_id, after_sequence=every[-1].sequence
            )
        ]
        assert tail == []


async def test_cancel_on_disconnect(tmp_path: Path) -> None:
    replies = [
        {"delay_seconds": 10, "text": "too late"},
        {"delay_seconds": 0.5, "text": "kept going"},
    ]
    async with harness(tmp_path, replies) as h:
        stream = h.client.execute("slow", mode=FC, cancel_on_disconnect=True)
        first = await anext(stream)
        await asyncio.sleep(0.2)
        await stream.aclose()  # type: ignore[attr-defined]
        for _ in range(50):
            task = await h.client.get_task(first.task_id)
            if task.status == tasks_pb2.TASK_STATUS_CANCELLED:
                break
            await asyncio.sleep(0.05)
        assert task.status == tasks_pb2.TASK_STATUS_CANCELLED
        assert task.stop_detail == "the caller disconnected"
        # Without the flag, leaving the stream leaves the task running.
        stream = h.client.execute("slow too", mode=FC)
        kept = await anext(stream)
        await stream.aclose()  # type: ignore[attr-defined]
        rest = [e async for e in h.client.stream_task_events(kept.task_id)]
        assert rest[-1].status_changed.current == tasks_pb2.TASK_STATUS_COMPLETED
