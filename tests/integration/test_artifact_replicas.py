"""Artifacts across replicas on the machine's Redis and PostgreSQL: a write that waits
for an approval given on another replica, then read back on that replica; a replica
killed after a write, the task finished by the other without writing again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import events_pb2, tasks_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient, to_python
from tests.helpers import server_process
from tests.integration.harness import assert_well_formed, final, of_kind
from tests.integration.test_takeover import kill, read_until, replica_env, wait_for
from tests.integration.trust import trusted

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
WRITE = {"name": "write_artifact", "arguments": {"name": "plan.md", "content": "1. look"}}
READ = {"name": "read_artifact", "arguments": {"name": "plan.md"}}


async def test_an_approved_write_is_readable_on_every_replica_and_tenant_scoped(
    tmp_path: Path, prefix: str, database: str
) -> None:
    shared = {"redis_url": "redis://127.0.0.1:6379/0", "redis_prefix": prefix,
              "database_url": database}  # fmt: skip
    replies = [{"tool_calls": [WRITE]}, {"tool_calls": [READ]}, {"text": "planned"}]
    async with (
        trusted(tmp_path / "a", replies, **shared) as a,
        # One model for both: the approval wakes the task on b, which has room for it.
        trusted(tmp_path / "b", **shared, llm_base_url=a.llm.base_url) as b,
    ):
        await a.grant("acme", "principal:alice", "write_artifact", "write", requires_approval=True)
        await a.grant("acme", "principal:alice", "read_artifact", "read")
        await b.refresh()
        alice = await a.client("acme", "alice")
        carol_on_b = await b.client("acme", "carol", "approver")
        alice_on_b = await b.client("acme", "alice")

        stream = alice.execute("make a plan", mode=FC)
        events: list[events_pb2.TaskEvent] = []
        async for event in stream:
            events.append(event)
            if event.WhichOneof("payload") == "approval_requested":
                break
        task_id, call_id = events[0].task_id, events[-1].approval_requested.call_id
        assert (await alice_on_b.get_task(task_id)).artifacts == []  # nothing before approval
        await carol_on_b.approve_tool_call(task_id, call_id, "approve")
        events.extend([event async for event in stream])
        assert_well_formed(events)

        (update,) = of_kind(events, "artifact_updated")
        assert (update.name, update.version, update.writer_task_id) == ("plan.md", 1, task_id)
        read = of_kind(events, "tool_call_finished")[-1]
        assert read.tool_name == "read_artifact"
        assert to_python(read.result)["content"] == "1. look"
        assert [(r.name, r.version) for r in final(events).artifacts] == [("plan.md", 1)]

        task = await alice_on_b.get_task(task_id)
        assert [(s.name, s.version, s.size_bytes) for s in task.artifacts] == [("plan.md", 1, 7)]
        content = await alice_on_b.get_artifact(task_id, "plan.md")
        assert (content.text, content.media_type) == ("1. look", "text/plain")
        other = await b.client("globex", "gil", "admin")
        with pytest.raises(client_errors.TaskNotFoundError):
            await other.get_artifact(task_id, "plan.md")


async def test_killed_after_a_write_the_other_replica_finishes_without_writing_again(
    tmp_path: Path, prefix: str, database: str
) -> None:
    """kill -9 after the write, while the model is asked again: the replica that takes the
    task over does not write again, and the final answer still names the artifact."""
    write = {"name": "write_artifact", "arguments": {"name": "report.md", "content": "draft"}}
    replies: list[dict[str, Any]] = [
        {"tool_calls": [write]},
        {"delay_seconds": 60, "text": "never delivered: this process is killed"},
        {"text": "the report is written"},
    ]
    async with FakeOpenAIServer(replies) as llm:
        env = replica_env(llm.base_url, prefix, database)
        with (
            server_process(tmp_path / "a", env) as first,
            server_process(tmp_path / "b", env) as second,
        ):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                stream = a.execute("write the report", mode=FC)
                head = await read_until(stream, lambda e: e.HasField("artifact_updated"))
                await wait_for(lambda: len(llm.requests) == 2, 10)  # asked again: in flight
                task_id = head[0].task_id
                kill(first)
                rest = [e async for e in b.stream_task_events(task_id, head[-1].sequence)]
                events = head + rest
                assert_well_formed(events)
                assert of_kind(events, "resumed")
                assert len(of_kind(events, "artifact_updated")) == 1
                assert [(r.name, r.version) for r in final(events).artifacts] == [("report.md", 1)]
                task = await b.get_task(task_id)
                assert [(s.name, s.version) for s in task.artifacts] == [("report.md", 1)]
                assert (await b.get_artifact(task_id, "report.md")).text == "draft"
