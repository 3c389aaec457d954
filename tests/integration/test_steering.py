"""Steering through the real server and the fake OpenAI server, which records every
request: SteerTask, and the conversation busy policies STEER and FOLLOW_UP."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import conversations_pb2 as cpb
from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from tests.helpers import http_server
from tests.integration.harness import assert_well_formed, final, harness, kinds

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


def _said(request: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], m.get("content") or "") for m in request["messages"]]


async def _wait_for(condition: Any, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_steer_task_reaches_the_model_and_the_conversation(tmp_path: Path) -> None:
    replies = [
        {"text": "Sales rose.", "hold": "draft", "match": "How did sales do"},
        {"text": "Sales rose; March fell.", "match": "also check March"},
    ]
    async with harness(tmp_path, replies) as h:
        cid = (await h.client.create_conversation()).conversation_id
        task = await h.client.start_task("How did sales do?", mode=FC, conversation_id=cid)
        await _wait_for(lambda: h.llm.held("draft"))
        steered = await h.client.steer_task(task.task_id, "also check March")
        assert steered.task.task_id == task.task_id
        assert steered.steer_id.startswith("steer_")
        h.llm.release("draft")
        events = [e async for e in h.client.stream_task_events(task.task_id)]
        assert_well_formed(events)
        assert final(events).text == "Sales rose; March fell."
        at = [e.sequence for e in events if e.WhichOneof("payload") == "task_steered"]
        assert at == [steered.sequence]
        applied = [e.steer_applied for e in events if e.WhichOneof("payload") == "steer_applied"]
        assert [a.steer_id for a in applied] == [steered.steer_id]
        assert "also check March" not in str(_said(h.llm.requests[0]))
        assert _said(h.llm.requests[1])[-2:] == [
            ("assistant", "Sales rose."),
            ("user", "also check March"),
        ]
        got = await h.client.get_conversation(cid)
        assert [(m.role, m.content) for m in got.messages] == [
            (cpb.MESSAGE_ROLE_USER, "How did sales do?"),
            (cpb.MESSAGE_ROLE_USER, "also check March"),
            (cpb.MESSAGE_ROLE_ASSISTANT, "Sales rose; March fell."),
        ]


async def test_a_steer_during_a_batch_of_two_calls_lands_after_both_results(
    tmp_path: Path,
) -> None:
    with http_server() as url:
        fetch = [{"name": "http_request", "arguments": {"url": f"{url}/slow=2"}}] * 2
        replies = [
            {"tool_calls": fetch, "match": "Fetch twice"},
            {"text": "Fetched, and compared.", "match": "also compare them"},
        ]
        async with harness(
            tmp_path, replies, http_allowed_networks=["127.0.0.1/32"], http_timeout_seconds=20
        ) as h:
            stream = h.client.execute("Fetch twice", mode=FC)
            events, started = [], 0
            async for event in stream:
                events.append(event)
                started += event.WhichOneof("payload") == "tool_call_started"
                if started == 2:
                    break
            await h.client.steer_task(events[0].task_id, "also compare them")
            events += [e async for e in stream]
            assert_well_formed(events)
            assert final(events).text == "Fetched, and compared."
            first, second = h.llm.requests
            assert "also compare them" not in str(_said(first))
            assert [role for role, _ in _said(second)][-4:] == ["assistant", "tool", "tool", "user"]
            assert _said(second)[-1] == ("user", "also compare them")
            order = kinds(events)
            finished = [i for i, k in enumerate(order) if k == "tool_call_finished"]
            assert len(finished) == 2
            assert order.index("steer_applied") > finished[-1]


async def test_steer_task_refuses_what_it_cannot_take(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "Hello."}]) as h:
        done = [e async for e in h.client.execute("hi", mode=FC)]
        task_id = done[0].task_id
        with pytest.raises(client_errors.TaskAlreadyTerminalError) as ended:
            await h.client.steer_task(task_id, "more")
        assert ended.value.code.name == "FAILED_PRECONDITION"
        assert "completed" in str(ended.value)
        with pytest.raises(client_errors.TaskNotFoundError):
            await h.client.steer_task("task_" + "0" * 24, "more")
        with pytest.raises(client_errors.InvalidArgumentError) as blank:
            await h.client.steer_task(task_id, "   ")
        assert blank.value.code.name == "INVALID_ARGUMENT"
        with pytest.raises(client_errors.InvalidArgumentError):
            await h.client.steer_task(task_id, "x" * 5_001)
        events = [e async for e in h.client.stream_task_events(task_id)]
        assert "task_steered" not in kinds(events)  # nothing stored by the refusals


async def test_the_steer_policy_steers_the_busy_conversations_task(tmp_path: Path) -> None:
    replies = [
        {"text": "Draft.", "hold": "first", "match": "write a summary"},
        {"text": "Short draft.", "match": "make it short"},
    ]
    async with harness(tmp_path, replies) as h:
        cid = (await h.client.create_conversation()).conversation_id
        running = await h.client.start_task("write a summary", mode=FC, conversation_id=cid)
        await _wait_for(lambda: h.llm.held("first"))
        stream = h.client.execute(
            "make it short", mode=FC, conversation_id=cid, busy_policy="steer"
        )
        first = await anext(stream)
        assert first.task_id == running.task_id  # no new task: the running one, steered
        assert first.WhichOneof("payload") == "task_steered"
        assert first.task_steered.message == "make it short"
        h.llm.release("first")
        rest = [e async for e in stream]
        assert final(rest).text == "Short draft."
        listed = await h.client.list_tasks()
        assert [t.task_id for t in listed.tasks] == [running.task_id]
        # With nothing running, the same request starts a task.
        h.llm.add({"text": "Fresh.", "match": "a new question"})
        fresh = [
            e
            async for e in h.client.execute(
                "a new question", mode=FC, conversation_id=cid, busy_policy="steer"
            )
        ]
        assert fresh[0].task_id != running.task_id
        assert final(fresh).text == "Fresh."


async def test_follow_up_waits_for_the_turn_and_only_one_may_wait(tmp_path: Path) -> None:
    replies = [
        {"text": "One.", "hold": "one", "match": "question one"},
        {"text": "Two.", "match": "question two"},
    ]
    async with harness(tmp_path, replies) as h:
        cid = (await h.client.create_conversation()).conversation_id
        one = await h.client.start_task("question one", mode=FC, conversation_id=cid)
        await _wait_for(lambda: h.llm.held("one"))
        two = await h.client.start_task(
            "question two", mode=FC, conversation_id=cid, busy_policy="follow_up"
        )
        assert two.status == tasks_pb2.TASK_STATUS_PENDING
        with pytest.raises(client_errors.ConversationBusyError) as refused:
            await h.client.start_task(
                "question three", mode=FC, conversation_id=cid, busy_policy="follow_up"
            )
        assert refused.value.code.name == "FAILED_PRECONDITION"
        assert refused.value.metadata["busy"] == "FOLLOW_UP_QUEUED"
        assert refused.value.metadata["queued_task_id"] == two.task_id
        h.llm.release("one")
        for task in (one, two):
            events = [e async for e in h.client.stream_task_events(task.task_id)]
            assert_well_formed(events)
        assert _said(h.llm.requests[1])[1:] == [
            ("user", "question one"),
            ("assistant", "One."),
            ("user", "question two"),
        ]
        listed = await h.client.list_tasks()
        assert "question three" not in [t.task for t in listed.tasks]  # nothing stored


async def test_a_queued_task_takes_its_steer_when_it_starts(tmp_path: Path) -> None:
    replies = [
        {"text": "One.", "hold": "one", "match": "question one"},
        {"text": "Two, in brief.", "match": "question two"},
    ]
    async with harness(tmp_path, replies) as h:
        cid = (await h.client.create_conversation()).conversation_id
        one = await h.client.start_task("question one", mode=FC, conversation_id=cid)
        await _wait_for(lambda: h.llm.held("one"))
        two = await h.client.start_task(
            "question two", mode=FC, conversation_id=cid, busy_policy="enqueue"
        )
        steered = await h.client.steer_task(two.task_id, "be brief")
        assert steered.task.status == tasks_pb2.TASK_STATUS_PENDING
        h.llm.release("one")
        events = [e async for e in h.client.stream_task_events(two.task_id)]
        assert_well_formed(events)
        assert _said(h.llm.requests[1])[-2:] == [("user", "question two"), ("user", "be brief")]
        assert one.task_id != two.task_id
