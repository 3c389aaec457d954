"""Parked tasks across replicas (Redis + PostgreSQL): they outlive the process that parked
them, wake on the replica that gets their answer, and run no call twice; a remote A2A
child that asks for input is answered through agentd, on either replica."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as redis

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import events_pb2, tasks_pb2
from agentd_client.client import AgentClient
from tests.contract.conftest import REDIS_URL
from tests.helpers import recording_http_server, server_process
from tests.integration.harness import assert_well_formed, final, harness, model_settings, of_kind
from tests.integration.test_takeover import kill, replica_env
from tests.servers import QUIET, Running, running_server, settings_in

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
INPUT = tasks_pb2.TASK_STATUS_INPUT_REQUIRED
DONE = tasks_pb2.TASK_STATUS_COMPLETED


async def until(condition: Callable[[], Awaitable[bool]], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not await condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


async def statuses(client: AgentClient, task_ids: list[str]) -> list[int]:
    return [t.status for t in await asyncio.gather(*(client.get_task(t) for t in task_ids))]


async def parked(prefix: str) -> int:
    """Tasks the replicas list as parked (none of them holds a lease on them)."""
    client = redis.Redis.from_url(REDIS_URL)
    try:
        return int(await client.hlen(f"{prefix}parked"))
    finally:
        await client.aclose()


async def test_twenty_parked_tasks_survive_a_kill_9_and_run_their_calls_once(
    tmp_path: Path, prefix: str, database: str
) -> None:
    with recording_http_server() as (web, posts):
        replies: list[dict[str, Any]] = [{"match": "HTTP 200", "text": "paid", "repeat": -1}]
        for n in range(20):
            post = {"url": f"{web}/record", "method": "POST", "body": f"paid-{n}"}
            call = {"name": "http_request", "arguments": post}
            replies.append({"match": f"pay {n} now", "tool_calls": [call]})
        async with FakeOpenAIServer(replies) as llm:
            env = replica_env(
                llm.base_url,
                prefix,
                database,
                AGENTD_APPROVAL_TOOLS="http_request",
                AGENTD_ANONYMOUS_ROLES="approver",
            )
            with (
                server_process(tmp_path / "a", env) as first,
                server_process(tmp_path / "b", env) as second,
            ):
                async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                    started = [await a.start_task(f"pay {n} now", mode=FC) for n in range(20)]
                    ids = [t.task_id for t in started]

                    async def all_parked() -> bool:
                        waiting = await statuses(b, ids) == [INPUT] * 20
                        return waiting and await parked(prefix) == 20

                    await until(all_parked, 60, "20 tasks parked for approval")
                    kill(first)  # the replica that parked them
                    for task_id in ids:
                        async for event in b.stream_task_events(task_id):
                            if event.WhichOneof("payload") == "approval_requested":
                                call_id = event.approval_requested.call_id
                                break
                        await b.approve_tool_call(task_id, call_id, "approve")

                    async def all_done() -> bool:
                        return await statuses(b, ids) == [DONE] * 20

                    await until(all_done, 60, "20 approved tasks to complete on the survivor")
                    answers = {(await b.get_task(t)).final_answer for t in ids}
                    events = [e async for e in b.stream_task_events(ids[0])]
    assert answers == {"paid"}
    assert sorted(posts) == sorted(f"paid-{n}" for n in range(20))  # each once, none twice
    assert_well_formed(events)
    assert not of_kind(events, "resumed")  # woken from its park, not taken over


ASKER = """\
id: asker
description: Answers revenue questions, asking which quarter
instructions: You are the asker.
mode: function_calling
tools: []
ask_user: true
"""


def lead(port: int) -> str:
    return (
        "id: lead\n"
        "description: Delegates to a remote agent\n"
        "instructions: You are the lead.\n"
        "mode: function_calling\n"
        "tools: []\n"
        "remote_delegates:\n"
        "  - id: far-asker\n"
        f"    url: 127.0.0.1:{port}\n"
        "    agent: asker\n"
        "    description: An asker on another agentd\n"
    )


def agents(where: Path, name: str, text: str) -> Path:
    where.mkdir(parents=True)
    (where / f"{name}.yaml").write_text(text)
    return where


@asynccontextmanager
async def replicas(
    tmp_path: Path, llm: FakeOpenAIServer, prefix: str, database: str, **more: Any
) -> AsyncIterator[tuple[Running, Running]]:
    """Two agentd servers in this process sharing Redis and PostgreSQL."""
    shared = {
        **QUIET,
        **model_settings(llm),
        "redis_url": REDIS_URL,
        "redis_prefix": prefix,
        "database_url": database,
        "takeover_interval_seconds": 0.2,
        "grace_period_seconds": 0.5,
        **more,
    }
    async with (
        running_server(settings_in(tmp_path / "one", **shared)) as one,
        running_server(settings_in(tmp_path / "two", **shared)) as two,
    ):
        yield one, two


async def test_a_remote_child_that_asks_is_answered_through_agentd_on_another_replica(
    tmp_path: Path, prefix: str, database: str
) -> None:
    remote_replies: list[dict[str, Any]] = [
        {"match": "Q3", "text": "Q3 revenue is 42"},
        {"match": "You are the asker", "tool_calls": [
            {"name": "ask_user", "arguments": {"question": "Which quarter?"}}]},
    ]  # fmt: skip
    remote_settings = {"a2a": True, "agents_dir": agents(tmp_path / "r", "asker", ASKER)}
    async with harness(tmp_path / "remote", remote_replies, **remote_settings) as remote:
        local_replies: list[dict[str, Any]] = [
            {"match": "Q3 revenue is 42", "text": "Lead: Q3 revenue is 42"},
            {"match": "You are the lead",
             "tool_calls": [{"name": "agent_far-asker", "arguments": {"task": "revenue?"}}]},
        ]  # fmt: skip
        folder = agents(tmp_path / "l", "lead", lead(remote.server.port))
        local = {"agents_dir": folder, "http_allowed_networks": ["127.0.0.1/32"]}
        async with (
            FakeOpenAIServer(local_replies) as llm,
            replicas(tmp_path, llm, prefix, database, **local) as (one, two),
            one.client(timeout=30) as on_one,
            two.client(timeout=30) as on_two,
        ):
            events: list[events_pb2.TaskEvent] = []
            waiting: Any = None
            async for event in on_one.execute("what was the revenue?", agent="lead"):
                events.append(event)
                if event.WhichOneof("payload") == "subtask_waiting":
                    waiting = event.subtask_waiting
                    break
            assert waiting is not None
            assert waiting.kind == "input"
            assert "Which quarter?" in waiting.detail
            parent_id = events[0].task_id
            parent = await on_two.get_task(parent_id)
            assert parent.status == INPUT
            child = await on_two.get_task(waiting.child_task_id)
            assert child.status == INPUT

            # Answered on the other replica: on to the remote task, by its id.
            await on_two.provide_input(waiting.child_task_id, waiting.request_id, "Q3")
            rest = [e async for e in on_two.stream_task_events(parent_id, events[-1].sequence)]
        every = events + rest
        assert_well_formed(every)
        assert final(every).text == "Lead: Q3 revenue is 42"
        (finished,) = of_kind(every, "subtask_finished")
        assert finished.answer == "Q3 revenue is 42"
        asked = [r for r in remote.llm.requests if "Q3" in str(r["messages"])]
        assert asked  # the remote agent's model got the answer given to agentd
