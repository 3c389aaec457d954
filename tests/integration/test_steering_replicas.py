"""Steers across real `agentd serve` processes sharing the machine's Redis and a fresh
PostgreSQL database: a steer sent to the replica that does not run the task lands in the
run on the other, as a busy conversation's STEER policy does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import tasks_pb2
from agentd_client.client import AgentClient
from tests.helpers import server_process
from tests.integration.harness import assert_well_formed, final
from tests.integration.test_takeover import replica_env, wait_for

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


def _said(request: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], m.get("content") or "") for m in request["messages"]]


async def test_a_steer_sent_to_the_other_replica_lands(
    tmp_path: Path, prefix: str, database: str
) -> None:
    replies: list[dict[str, Any]] = [
        {"text": "A long report.", "hold": "report", "match": "Write the report"},
        {"text": "A short report.", "match": "keep it short"},
        {"text": "Shorter still.", "hold": "again", "match": "Write another"},
        {"text": "In French.", "match": "in French"},
    ]
    async with FakeOpenAIServer(replies) as llm:
        env = replica_env(llm.base_url, prefix, database)
        with (
            server_process(tmp_path / "a", env) as first,
            server_process(tmp_path / "b", env) as second,
        ):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                cid = (await a.create_conversation()).conversation_id
                task = await a.start_task("Write the report", mode=FC, conversation_id=cid)
                await wait_for(lambda: llm.held("report"), 10)  # A runs it, on the model
                steered = await b.steer_task(task.task_id, "keep it short")
                llm.release("report")
                events = [e async for e in b.stream_task_events(task.task_id)]
                assert_well_formed(events)
                assert final(events).text == "A short report."
                assert _said(llm.requests[1])[-2:] == [
                    ("assistant", "A long report."),
                    ("user", "keep it short"),
                ]
                applied = [e for e in events if e.WhichOneof("payload") == "steer_applied"]
                assert [e.steer_applied.steer_sequence for e in applied] == [steered.sequence]

                # STEER through B while A runs the conversation's next task.
                other = await a.start_task("Write another", mode=FC, conversation_id=cid)
                await wait_for(lambda: llm.held("again"), 10)
                stream = b.execute("in French", mode=FC, conversation_id=cid, busy_policy="steer")
                head = await anext(stream)
                assert head.task_id == other.task_id
                assert head.WhichOneof("payload") == "task_steered"
                llm.release("again")
                rest = [e async for e in stream]
                assert final(rest).text == "In French."
