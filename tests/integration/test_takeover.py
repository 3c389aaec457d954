"""Crash takeover and shutdown handover through real `agentd serve` processes sharing the
machine's Redis and a fresh PostgreSQL database.

A process is killed with SIGKILL in the middle of a task; another process (or
the same one restarted) claims the expired lease, resumes from the last
checkpoint, and the client's resumed stream is complete: every event exactly
once, in order. Completed steps are not run again and a tool call that may not
be repeated (an HTTP POST) is never repeated, even when its outcome is unknown.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import events_pb2, tasks_pb2, tools_pb2
from agentd_client.client import AgentClient
from tests.contract.conftest import REDIS_URL
from tests.helpers import (
    ServerProcess,
    llm_env,
    recording_http_server,
    server_process,
)
from tests.integration.harness import assert_well_formed, final, of_kind

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
PLAN = tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE
Event = events_pb2.TaskEvent


def replica_env(base_url: str, prefix: str, database: str, **extra: str) -> dict[str, str]:
    settings = {
        "AGENTD_REDIS_URL": REDIS_URL,
        "AGENTD_REDIS_PREFIX": prefix,
        "AGENTD_DATABASE_URL": database,
        "AGENTD_LEASE_SECONDS": "2",
        "AGENTD_TAKEOVER_INTERVAL_SECONDS": "0.2",
        "AGENTD_HTTP_ALLOWED_NETWORKS": "127.0.0.1/32",
        "AGENTD_HTTP_TIMEOUT_SECONDS": "60",
        "AGENTD_STEP_TIMEOUT_SECONDS": "60",
        "AGENTD_CRITIC_POLICY": "off",
    }
    return llm_env(base_url, **{**settings, **extra})


async def read_until(stream: AsyncIterator[Event], stop: Callable[[Event], bool]) -> list[Event]:
    events = []
    async for event in stream:
        events.append(event)
        if stop(event):
            break
    return events


async def wait_for(condition: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def kill(process: ServerProcess) -> None:
    process.process.kill()  # SIGKILL: no drain, no handover, no last write
    assert process.wait(10) == -9


async def test_killed_mid_plan_the_other_replica_resumes_without_repeating_steps(
    tmp_path: Path, prefix: str, database: str
) -> None:
    with recording_http_server() as (web, posts):
        plan = {
            "goal": "order and report",
            "steps": [
                {
                    "id": "s1",
                    "description": "place the order",
                    "tool": "http_request",
                    "arguments": {"url": f"{web}/record", "method": "POST", "body": "order-1"},
                },
                {
                    "id": "s2",
                    "description": "price it",
                    "tool": "calculator",
                    "arguments": {"expression": "6*7"},
                },
                {
                    "id": "s3",
                    "description": "write the report",
                    "depends_on": ["s1", "s2"],
                },
            ],
        }
        replies: list[dict[str, Any]] = [
            {"json": plan},
            {"delay_seconds": 60, "text": "never delivered: this process is killed"},
            {"text": "report: ordered, 42"},
            {"text": "Ordered once; the price is 42."},
        ]
        async with FakeOpenAIServer(replies) as llm:
            env = replica_env(llm.base_url, prefix, database)
            with (
                server_process(tmp_path / "a", env) as first,
                server_process(tmp_path / "b", env) as second,
            ):
                async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                    stream = a.execute("order, price and report", mode=PLAN)
                    head = await read_until(stream, lambda e: e.step_started.step_id == "s3")
                    await wait_for(lambda: len(llm.requests) == 2, 10)  # s3 waits on the model
                    task_id = head[0].task_id
                    kill(first)
                    rest = [e async for e in b.stream_task_events(task_id, head[-1].sequence)]
                    every = head + rest
                    assert_well_formed(every)
                    resumed = of_kind(every, "resumed")
                    assert len(resumed) == 1
                    assert resumed[0].completed_steps == 2
                    finished = [f.step_id for f in of_kind(every, "step_finished")]
                    assert sorted(finished) == ["s1", "s2", "s3"]  # each completed once
                    started = [s.step_id for s in of_kind(every, "step_started")]
                    assert sorted(started) == ["s1", "s2", "s3", "s3"]  # s3 was cut off once
                    assert posts == ["order-1"]  # the POST was not repeated
                    tool_calls = [t.tool_name for t in of_kind(every, "tool_call_started")]
                    assert sorted(tool_calls) == ["calculator", "http_request"]
                    assert final(every).text == ("Ordered once; the price is 42.")
                    task = await b.get_task(task_id)
                    assert task.status == tasks_pb2.TASK_STATUS_COMPLETED
                    assert task.last_sequence == every[-1].sequence
                    # s3's model call was asked again by B; nothing else was
                    assert len(llm.requests) == 4
                    llm.assert_complete()
                    again = [e.sequence async for e in b.stream_task_events(task_id)]
                    assert again == [e.sequence for e in every]


async def test_killed_during_a_post_the_restarted_process_reports_an_unknown_outcome(
    tmp_path: Path, prefix: str, database: str
) -> None:
    with recording_http_server() as (web, posts):
        post = {"url": f"{web}/record?hold=60", "method": "POST", "body": "pay 10 EUR"}
        replies: list[dict[str, Any]] = [
            {"tool_calls": [{"name": "http_request", "arguments": post}]},
            {"text": "The payment may or may not have gone through; please check."},
        ]
        async with FakeOpenAIServer(replies) as llm:
            env = replica_env(llm.base_url, prefix, database)
            with server_process(tmp_path / "a", env) as first:
                async with AgentClient(first.address) as a:
                    stream = a.execute("pay 10 EUR", mode=FC)
                    head = await read_until(
                        stream, lambda e: e.WhichOneof("payload") == "tool_call_started"
                    )
                    await wait_for(lambda: len(posts) == 1, 10)  # the POST is in flight
                    kill(first)
                task_id = head[0].task_id
                # The same service restarted: it claims the expired lease itself.
                with server_process(tmp_path / "a2", env) as restarted:
                    async with AgentClient(restarted.address) as again:
                        rest = [
                            e async for e in again.stream_task_events(task_id, head[-1].sequence)
                        ]
            every = head + rest
            assert_well_formed(every)
            assert len(of_kind(every, "resumed")) == 1
            (outcome,) = of_kind(every, "tool_call_finished")
            assert outcome.call_id == head[-1].tool_call_started.call_id
            assert outcome.error.kind == (tools_pb2.TOOL_ERROR_KIND_OUTCOME_UNKNOWN)
            assert posts == ["pay 10 EUR"]  # not repeated
            # The model saw the unknown outcome and answered from it.
            tool_message = llm.requests[1]["messages"][-1]
            assert tool_message["role"] == "tool"
            assert "outcome unknown" in tool_message["content"]
            answer = final(every).text
            assert answer.startswith("The payment may or may not")


async def test_sigterm_hands_a_running_task_to_the_other_replica_at_once(
    tmp_path: Path, prefix: str, database: str
) -> None:
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "2+3"}}]},
        {"delay_seconds": 60, "text": "never delivered: the process shuts down"},
        {"text": "It is 5."},
    ]
    async with FakeOpenAIServer(replies) as llm:
        # A long lease: only the handover, not an expiry, can explain a quick takeover.
        env = replica_env(
            llm.base_url, prefix, database, AGENTD_LEASE_SECONDS="60",
            AGENTD_GRACE_PERIOD_SECONDS="1",
        )  # fmt: skip
        with (
            server_process(tmp_path / "a", env) as first,
            server_process(tmp_path / "b", env) as second,
        ):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                stream = a.execute("add 2 and 3", mode=FC)
                head = await read_until(stream, lambda e: e.step_started.step_id == "iteration-2")
                await wait_for(lambda: len(llm.requests) == 2, 10)
                task_id = head[0].task_id
                signalled = time.monotonic()
                first.terminate()
                follow = b.stream_task_events(task_id, head[-1].sequence)
                rest = await read_until(follow, lambda e: e.WhichOneof("payload") == "resumed")
                took = time.monotonic() - signalled
                rest += [e async for e in follow]
                assert first.wait(15) == 0
                every = head + rest
                assert_well_formed(every)
                assert took < 10, f"taken over after {took:.1f} s"  # the lease lasts 60 s
                assert of_kind(every, "resumed")[0].completed_steps == 1
                # The calculator call of iteration 1 is not repeated; iteration 2 is redone.
                assert len(of_kind(every, "tool_call_started")) == 1
                assert final(every).text == "It is 5."
                assert "handed over" in first.log()
                statuses = [c.current for c in of_kind(every, "status_changed")]
                assert tasks_pb2.TASK_STATUS_CANCELLED not in statuses
                body = json.dumps(llm.requests[2]["messages"])
                assert "2+3" in body  # B continued the conversation from the checkpoint
