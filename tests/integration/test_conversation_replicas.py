"""Conversations across real `agentd serve` processes sharing the machine's Redis and a
fresh PostgreSQL database: a conversation goes on on another replica after kill -9 of
the one running its task, its turn added exactly once; and one task runs per
conversation across replicas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import conversations_pb2 as cpb
from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from agentd_client.client import AgentClient
from tests.helpers import server_process
from tests.integration.harness import assert_well_formed, final, of_kind
from tests.integration.test_takeover import kill, read_until, replica_env, wait_for

pytestmark = [pytest.mark.redis, pytest.mark.postgres]
FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


def _said(request: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], m.get("content") or "") for m in request["messages"]]


async def test_a_conversation_goes_on_on_another_replica_after_kill_9(
    tmp_path: Path, prefix: str, database: str
) -> None:
    replies: list[dict[str, Any]] = [
        {"text": "Paris.", "match": "capital of France"},
        {"delay_seconds": 60, "text": "never delivered: killed", "match": "And of Italy"},
        {"text": "Rome.", "match": "And of Italy"},
        {"text": "France, then Italy.", "match": "Which countries"},
    ]
    async with FakeOpenAIServer(replies) as llm:
        env = replica_env(llm.base_url, prefix, database)
        with (
            server_process(tmp_path / "a", env) as first,
            server_process(tmp_path / "b", env) as second,
        ):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                cid = (await a.create_conversation("capitals")).conversation_id
                one = [e async for e in a.execute("The capital of France?", mode=FC,
                                                  conversation_id=cid)]  # fmt: skip
                assert final(one).text == "Paris."
                stream = a.execute("And of Italy?", mode=FC, conversation_id=cid)
                head = await read_until(stream, lambda e: e.WhichOneof("payload") == "usage"
                                        or len(llm.requests) == 2)  # fmt: skip
                await wait_for(lambda: len(llm.requests) == 2, 10)  # turn 2 waits on the model
                two_id = head[0].task_id
                with pytest.raises(client_errors.ConversationBusyError):  # busy on B too
                    await b.start_task("Meanwhile?", mode=FC, conversation_id=cid)
                kill(first)
                rest = [e async for e in b.stream_task_events(two_id, head[-1].sequence)]
                two = head + rest
                assert_well_formed(two)
                assert len(of_kind(two, "resumed")) == 1
                assert final(two).text == "Rome."
                three = [e async for e in b.execute("Which countries did I ask about?",
                                                    mode=FC, conversation_id=cid)]  # fmt: skip
                assert final(three).text == "France, then Italy."
                assert _said(llm.requests[-1])[1:] == [
                    ("user", "The capital of France?"),
                    ("assistant", "Paris."),
                    ("user", "And of Italy?"),
                    ("assistant", "Rome."),
                    ("user", "Which countries did I ask about?"),
                ]
                got = await b.get_conversation(cid)
                assert [(m.role, m.content) for m in got.messages] == [
                    (cpb.MESSAGE_ROLE_USER, "The capital of France?"),
                    (cpb.MESSAGE_ROLE_ASSISTANT, "Paris."),
                    (cpb.MESSAGE_ROLE_USER, "And of Italy?"),
                    (cpb.MESSAGE_ROLE_ASSISTANT, "Rome."),
                    (cpb.MESSAGE_ROLE_USER, "Which countries did I ask about?"),
                    (cpb.MESSAGE_ROLE_ASSISTANT, "France, then Italy."),
                ]  # turn 2 once, though two processes worked on it
                assert got.conversation.running_task_id == ""
                task = await b.get_task(two_id)
                assert task.conversation_id == cid
            # A restart of the whole service keeps the conversation.
            with server_process(tmp_path / "c", env) as restarted:
                async with AgentClient(restarted.address) as c:
                    again = await c.get_conversation(cid)
                    assert again.conversation.message_count == 6


async def test_enqueue_across_replicas_waits_for_the_task_on_the_other(
    tmp_path: Path, prefix: str, database: str
) -> None:
    replies: list[dict[str, Any]] = [
        {"hold": "one", "text": "First.", "match": "one"},
        {"text": "Second.", "match": "two"},
    ]
    async with FakeOpenAIServer(replies) as llm:
        env = replica_env(llm.base_url, prefix, database)
        with (
            server_process(tmp_path / "a", env) as first,
            server_process(tmp_path / "b", env) as second,
        ):
            async with AgentClient(first.address) as a, AgentClient(second.address) as b:
                cid = (await a.create_conversation()).conversation_id
                one = await a.start_task("question one", mode=FC, conversation_id=cid)
                await wait_for(lambda: llm.held("one"), 10)
                two = await b.start_task(
                    "question two", mode=FC, conversation_id=cid, busy_policy="enqueue"
                )
                assert (await b.get_task(two.task_id)).status == tasks_pb2.TASK_STATUS_PENDING
                llm.release("one")
                events = [e async for e in b.stream_task_events(two.task_id)]
                assert final(events).text == "Second."
                assert (await a.get_task(one.task_id)).status == tasks_pb2.TASK_STATUS_COMPLETED
                assert _said(llm.requests[1])[1:] == [
                    ("user", "question one"),
                    ("assistant", "First."),
                    ("user", "question two"),
                ]
