"""Conversations through the real server and the fake OpenAI server, which records every
request: each task of a conversation is sent the earlier turns, adds its own when it
ends, and the history sent stays within the agent's memory budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentd.v1 import conversations_pb2 as cpb
from agentd.v1 import tasks_pb2
from tests.integration.harness import assert_well_formed, final, harness

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
USER, ASSISTANT, TOOL = cpb.MESSAGE_ROLE_USER, cpb.MESSAGE_ROLE_ASSISTANT, cpb.MESSAGE_ROLE_TOOL


def _conversation(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, content) of a model request's messages, tool calls shown by name."""
    shown = []
    for message in request["messages"]:
        content = message.get("content") or ""
        calls = message.get("tool_calls") or []
        if calls:
            content += " ".join(f"<call {c['function']['name']}>" for c in calls)
        shown.append((message["role"], content))
    return shown


async def test_the_third_turn_is_sent_the_first_two(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "19*3"}}]},
        {"text": "19 times 3 is 57."},
        {"text": "Doubled, that is 114."},
        {"text": "You first asked about 19 times 3."},
    ]
    async with harness(tmp_path, replies) as h:
        chat = await h.client.create_conversation("arithmetic")
        cid = chat.conversation_id
        first = await h.run("What is 19*3?", mode=FC, conversation_id=cid)
        second = await h.run("Double it.", mode=FC, conversation_id=cid)
        third = await h.run("What did I ask first?", mode=FC, conversation_id=cid)
        for events in (first, second, third):
            assert_well_formed(events)
        assert final(third).text == "You first asked about 19 times 3."

        sent = _conversation(h.llm.requests[3])  # the third task's only request
        assert sent[0][0] == "system"
        assert sent[1:] == [
            ("user", "What is 19*3?"),
            ("assistant", "[Tool calls made for this answer]\n"
                          '- calculator({"expression": "19*3"}) -> 57\n\n19 times 3 is 57.'),
            ("user", "Double it."),
            ("assistant", "Doubled, that is 114."),
            ("user", "What did I ask first?"),
        ]  # fmt: skip
        second_sent = _conversation(h.llm.requests[2])
        assert second_sent[-1] == ("user", "Double it.")
        assert ("user", "What did I ask first?") not in second_sent
        # The first task's own requests carried no history.
        assert [r for r, _ in _conversation(h.llm.requests[0])] == ["system", "user"]

        got = await h.client.get_conversation(cid)
        messages = [(m.index, m.role, m.content, m.task_id) for m in got.messages]
        t1, t2, t3 = (events[0].task_id for events in (first, second, third))
        assert messages == [
            (1, USER, "What is 19*3?", t1),
            (2, TOOL, "57", t1),
            (3, ASSISTANT, "19 times 3 is 57.", t1),
            (4, USER, "Double it.", t2),
            (5, ASSISTANT, "Doubled, that is 114.", t2),
            (6, USER, "What did I ask first?", t3),
            (7, ASSISTANT, "You first asked about 19 times 3.", t3),
        ]
        assert got.messages[1].tool_name == "calculator"
        assert got.conversation.turn_count == 3
        assert got.conversation.running_task_id == ""
        assert all(m.tokens > 0 for m in got.messages)
        task = await h.client.get_task(t3)
        assert task.conversation_id == cid
        usage = [e.usage for e in third if e.WhichOneof("payload") == "usage"]
        assert usage[-1].call.saved_tokens == 0  # everything earlier was sent


async def _wait_for(condition: Any, seconds: float = 10) -> None:
    import asyncio
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def _events_until_end(h: Any, task_id: str) -> list[Any]:
    return [e async for e in h.client.stream_task_events(task_id)]


async def test_reject_refuses_a_second_task_while_one_runs(tmp_path: Path) -> None:
    import pytest

    from agentd_client import errors as client_errors

    replies = [
        {"text": "First answer.", "delay_seconds": 1.5, "match": "first"},
        {"text": "Third answer.", "match": "third"},
    ]
    async with harness(tmp_path, replies) as h:
        cid = (await h.client.create_conversation()).conversation_id
        running = await h.client.start_task("the first question", mode=FC, conversation_id=cid)
        await _wait_for(lambda: len(h.llm.requests) == 1)
        with pytest.raises(client_errors.ConversationBusyError) as busy:
            await h.client.start_task("the second question", mode=FC, conversation_id=cid)
        assert busy.value.code.name == "FAILED_PRECONDITION"
        assert busy.value.metadata["task_id"] == running.task_id
        with pytest.raises(client_errors.ConversationBusyError):  # the default policy too
            await h.client.start_task(
                "again", mode=FC, conversation_id=cid, busy_policy="reject", idempotency_key="k1"
            )
        got = await h.client.get_conversation(cid)
        assert got.conversation.running_task_id == running.task_id
        with pytest.raises(client_errors.ConversationBusyError):  # nor deleted while busy
            await h.client.delete_conversation(cid)
        assert_well_formed(await _events_until_end(h, running.task_id))
        # A key refused for a busy conversation is free again.
        third = await h.run(
            "the third question", mode=FC, conversation_id=cid, idempotency_key="k1"
        )
        assert final(third).text == "Third answer."
        sent = _conversation(h.llm.requests[1])
        assert sent[1:] == [
            ("user", "the first question"),
            ("assistant", "First answer."),
            ("user", "the third question"),
        ]
        listed = await h.client.list_tasks()
        assert "the second question" not in [t.task for t in listed.tasks]  # nothing stored


async def test_enqueue_runs_the_waiting_tasks_in_order_after_the_running_one(
    tmp_path: Path,
) -> None:
    replies = [
        {"text": "Answer one.", "delay_seconds": 1.0, "match": "question one"},
        {"text": "Answer two.", "match": "question two"},
        {"text": "Answer three.", "match": "question three"},
    ]
    async with harness(tmp_path, replies) as h:
        cid = (await h.client.create_conversation()).conversation_id
        one = await h.client.start_task("question one", mode=FC, conversation_id=cid)
        await _wait_for(lambda: len(h.llm.requests) == 1)
        two = await h.client.start_task(
            "question two", mode=FC, conversation_id=cid, busy_policy="enqueue"
        )
        three = await h.client.start_task(
            "question three", mode=FC, conversation_id=cid, busy_policy="enqueue"
        )
        assert two.status == three.status == tasks_pb2.TASK_STATUS_PENDING
        assert (await h.client.get_task(two.task_id)).status == tasks_pb2.TASK_STATUS_PENDING
        assert len(h.llm.requests) == 1  # they wait: nothing asked of the model yet
        for task in (one, two, three):
            assert_well_formed(await _events_until_end(h, task.task_id))
        asked = [_conversation(r)[-1][1] for r in h.llm.requests]
        assert asked == ["question one", "question two", "question three"]
        assert _conversation(h.llm.requests[2])[1:] == [
            ("user", "question one"),
            ("assistant", "Answer one."),
            ("user", "question two"),
            ("assistant", "Answer two."),
            ("user", "question three"),
        ]
        got = await h.client.get_conversation(cid)
        assert [m.task_id for m in got.messages] == [
            one.task_id, one.task_id, two.task_id, two.task_id, three.task_id, three.task_id
        ]  # fmt: skip


async def test_interrupt_cancels_the_running_task_and_keeps_its_turn(tmp_path: Path) -> None:
    replies = [
        {"text": "never delivered", "delay_seconds": 30, "match": "slow question"},
        {"text": "Quick answer.", "match": "quick question"},
    ]
    async with harness(tmp_path, replies) as h:
        cid = (await h.client.create_conversation()).conversation_id
        slow = await h.client.start_task("slow question", mode=FC, conversation_id=cid)
        await _wait_for(lambda: len(h.llm.requests) == 1)
        quick = await h.client.start_task(
            "quick question", mode=FC, conversation_id=cid, busy_policy="interrupt"
        )
        slow_events = await _events_until_end(h, slow.task_id)
        assert_well_formed(slow_events, tasks_pb2.TASK_STATUS_CANCELLED)
        ended = await h.client.get_task(slow.task_id)
        assert ended.stop_detail == f"interrupted by task {quick.task_id} of the same conversation"
        quick_events = await _events_until_end(h, quick.task_id)
        assert final(quick_events).text == "Quick answer."
        sent = _conversation(h.llm.requests[1])
        assert sent[1] == ("user", "slow question")
        assert sent[2][0] == "assistant"
        assert sent[2][1].startswith("(No answer: the task ended cancelled: interrupted by task")
        assert sent[3] == ("user", "quick question")
