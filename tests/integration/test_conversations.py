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
