"""The conversation RPCs through the real server: create, get (paged), list, delete;
ids checked on entry; another tenant's conversation is NOT_FOUND like an unknown one."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentd_client import errors as client_errors
from tests.integration.harness import harness

UNKNOWN = "conv_" + "0" * 24


async def test_create_get_list_and_delete(tmp_path: Path) -> None:
    async with harness(tmp_path, []) as h:
        made = [await h.client.create_conversation(f"chat {n}") for n in range(3)]
        first = made[0]
        assert first.conversation_id.startswith("conv_")
        assert (first.title, first.created_by, first.message_count) == ("chat 0", "anonymous", 0)
        labelled = await h.client.create_conversation("labelled", labels={"team": "billing"})
        assert dict(labelled.labels) == {"team": "billing"}
        got = await h.client.get_conversation(first.conversation_id)
        assert got.conversation.conversation_id == first.conversation_id
        assert list(got.messages) == []
        assert got.next_page_token == ""
        page = await h.client.list_conversations(page_size=2)
        assert [c.title for c in page.conversations] == ["labelled", "chat 2"]
        rest = await h.client.list_conversations(page_token=page.next_page_token)
        assert [c.title for c in rest.conversations] == ["chat 1", "chat 0"]
        assert rest.next_page_token == ""
        await h.client.delete_conversation(first.conversation_id)
        with pytest.raises(client_errors.ConversationNotFoundError):
            await h.client.get_conversation(first.conversation_id)
        with pytest.raises(client_errors.ConversationNotFoundError):
            await h.client.delete_conversation(first.conversation_id)


async def test_malformed_ids_and_bad_fields_are_invalid(tmp_path: Path) -> None:
    async with harness(tmp_path, [{"text": "never", "repeat": -1}]) as h:
        for bad in ("", "conv_xyz", "task_0123", "conv_" + "0" * 25, "conv_" + "a" * 10_000,
                    "../../etc/passwd", "conv_00000000000000000000000\x00"):  # fmt: skip
            with pytest.raises(client_errors.InvalidArgumentError) as got:
                await h.client.get_conversation(bad)
            assert [v.field for v in got.value.field_violations] == ["conversation_id"]
            with pytest.raises(client_errors.InvalidArgumentError):
                await h.client.delete_conversation(bad)
        for bad in ("conv_xyz", "conv_" + "A" * 24):
            with pytest.raises(client_errors.InvalidArgumentError) as refused:
                await h.client.start_task("hello", conversation_id=bad)
            assert [v.field for v in refused.value.field_violations] == ["conversation_id"]
        with pytest.raises(client_errors.InvalidArgumentError) as long:
            await h.client.create_conversation("t" * 201)
        assert [v.field for v in long.value.field_violations] == ["title"]
        with pytest.raises(client_errors.InvalidArgumentError) as control:
            await h.client.create_conversation("bell \x07")
        assert [v.field for v in control.value.field_violations] == ["title"]
        with pytest.raises(client_errors.InvalidArgumentError) as labels:
            await h.client.create_conversation(labels={"Bad Key": "x"})
        assert [v.field for v in labels.value.field_violations] == ["labels[Bad Key]"]
        with pytest.raises(client_errors.InvalidArgumentError):
            await h.client.get_conversation(UNKNOWN, page_token="not-a-token")
        with pytest.raises(client_errors.ConversationNotFoundError):
            await h.client.start_task("hello", conversation_id=UNKNOWN)
        assert h.llm.requests == []  # nothing ran
        listed = await h.client.list_conversations()
        assert list(listed.conversations) == []


async def test_another_tenants_conversation_is_not_found(tmp_path: Path) -> None:
    from tests.integration.trust import trusted

    async with trusted(tmp_path, [{"text": "hi", "repeat": -1}]) as t:
        acme = await t.client("acme", "alice", "admin")
        globex = await t.client("globex", "gina", "admin")
        secret = await acme.create_conversation("acme only")
        cid = secret.conversation_id
        for call in (
            globex.get_conversation(cid),
            globex.delete_conversation(cid),
            globex.start_task("tell me", conversation_id=cid),
        ):
            with pytest.raises(client_errors.ConversationNotFoundError) as missing:
                await call
            assert missing.value.reason == "CONVERSATION_NOT_FOUND"
        unknown_message = ""
        try:
            await globex.get_conversation(UNKNOWN)
        except client_errors.ConversationNotFoundError as error:
            unknown_message = error.message.replace(UNKNOWN, cid)
        with pytest.raises(client_errors.ConversationNotFoundError) as theirs:
            await globex.get_conversation(cid)
        assert theirs.value.message == unknown_message  # nothing tells the two apart
        assert list((await globex.list_conversations()).conversations) == []
        mine = await acme.get_conversation(cid)
        assert mine.conversation.title == "acme only"


async def test_an_agents_memory_settings_round_trip_and_are_checked(tmp_path: Path) -> None:
    from agentd.v1 import agents_pb2
    from agentd.v1 import conversations_pb2 as cpb

    memory = cpb.AgentMemory(
        budget_tokens=600,
        max_messages=0,  # set, and zero: no earlier messages at all
        tool_call_policy=cpb.MEMORY_TOOL_CALLS_KEEP,
        compaction_policy=cpb.MEMORY_COMPACTION_DROP,
    )
    async with harness(tmp_path, [], anonymous_roles=["admin"]) as h:
        created = await h.client.create_agent(agents_pb2.Agent(id="chat", memory=memory))
        assert created.memory == memory
        assert created.memory.HasField("max_messages")
        assert not created.memory.HasField("summary_tokens")  # unset: the server's
        assert (await h.client.get_agent("chat")).memory == memory
        plain = await h.client.create_agent(agents_pb2.Agent(id="plain"))
        assert not plain.HasField("memory")  # the server's defaults
        for bad, field in (
            (cpb.AgentMemory(budget_tokens=5), "agent.memory.budget_tokens"),
            (cpb.AgentMemory(budget_tokens=0), "agent.memory.budget_tokens"),
            (cpb.AgentMemory(tool_call_policy=9), "agent.memory.tool_calls"),  # type: ignore[arg-type]
            (cpb.AgentMemory(compaction_policy=7), "agent.memory.compaction"),  # type: ignore[arg-type]
        ):
            with pytest.raises(client_errors.InvalidArgumentError) as refused:
                await h.client.create_agent(agents_pb2.Agent(id="bad", memory=bad))
            assert [v.field for v in refused.value.field_violations] == [field]


async def test_a_conversation_is_its_creators_or_an_approvers(tmp_path: Path) -> None:
    from tests.integration.trust import trusted

    async with trusted(tmp_path, [{"text": "hi", "repeat": -1}]) as t:
        alice = await t.client("acme", "alice", "analyst")
        bob = await t.client("acme", "bob", "analyst")
        approver = await t.client("acme", "carol", "approver")
        cid = (await alice.create_conversation("alice's")).conversation_id
        for call in (
            bob.get_conversation(cid),
            bob.start_task("tell me", conversation_id=cid),
            bob.start_task("tell me", conversation_id=cid, busy_policy="interrupt"),
            bob.delete_conversation(cid),
        ):
            with pytest.raises(client_errors.AgentdError) as refused:
                await call
            assert refused.value.code.name == "PERMISSION_DENIED"
        assert list((await bob.list_conversations()).conversations) == []
        assert (await approver.get_conversation(cid)).conversation.title == "alice's"
        assert (await alice.get_conversation(cid)).conversation.created_by == "alice"
        await approver.delete_conversation(cid)
        with pytest.raises(client_errors.ConversationNotFoundError):
            await alice.get_conversation(cid)


async def test_a_page_of_long_messages_stays_under_the_message_size_limit(tmp_path: Path) -> None:
    from records.conversations.model import ConversationMessage, Turn

    async with harness(tmp_path, []) as h:
        cid = (await h.client.create_conversation("long answers")).conversation_id
        long = "é" * 16_000  # two bytes each: 32 KB a message
        for n in range(100):
            task_id = f"task_{n:024x}"
            turn = Turn(task_id, (ConversationMessage("user", f"question {n}", task_id),
                                  ConversationMessage("assistant", long, task_id)))  # fmt: skip
            await h.server.durable.conversations.append_turn("default", cid, turn)
        pages, token = [], ""
        while True:
            got = await h.client.get_conversation(cid, page_size=200, page_token=token)
            assert got.ByteSize() < 4 * 1024 * 1024
            pages.append([m.index for m in got.messages])
            token = got.next_page_token
            if not token:
                break
        assert len(pages) > 1  # cut by size, not by count
        assert [i for page in pages for i in page] == list(range(1, 201))
        assert all(page for page in pages)
