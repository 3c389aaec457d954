"""An agent created over the agent RPCs carries the long-term memory keys (`memory.
recall_top_k`, `memory.extract`) and `knowledge` (bases, rerank) as agent files do: they
round-trip through CreateAgent/GetAgent/UpdateAgent, are checked with the field named, and
a task of the agent follows them (recall into the prompt, extraction after the turn, the
search limited to its bases)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentd.v1 import agents_pb2
from agentd.v1 import conversations_pb2 as cpb
from agentd_client import errors as client_errors
from records.keys import new_key
from tests.integration.harness import final, of_kind
from tests.integration.test_knowledge_agent_bases import ask, shown_spec
from tests.integration.test_long_term_memory import FACT, client, memory_server, users
from tests.integration.test_memory_extraction import feature, proposal, texts

LIKES = "Alice drinks her tea without sugar"


def keeper() -> agents_pb2.Agent:
    return agents_pb2.Agent(
        id="keeper",
        instructions="You help and you remember.",
        tools=["search_knowledge"],
        memory=cpb.AgentMemory(recall_top_k=2, extract=True),
        knowledge=agents_pb2.AgentKnowledge(bases=["support"], rerank=False),
    )


async def test_memory_and_knowledge_keys_round_trip_and_the_task_follows_them(
    tmp_path: Path, pgvector_socket: str
) -> None:
    replies = [
        ask("internal"),
        {"text": "Green, and I may search support only."},
        proposal({"op": "add", "text": LIKES}),
    ]
    # The server recalls nothing by default: the recall below is the agent's.
    async with memory_server(
        tmp_path, "sqlite", pgvector_socket, replies, memory_recall_top_k=0
    ) as t:
        acme, _ = await users(t)
        await t.grant("acme", "role:member", "search_knowledge", "read")
        key, plaintext = new_key("acme", "admin", ("admin",))
        await t.server.durable.api_keys.add(key)
        admin = t.running.client(api_key=plaintext, timeout=20)
        memory = feature(t).memory
        assert memory is not None
        await memory.remember("acme", "alice", "default", FACT)

        created = await admin.create_agent(keeper())
        for shown in (created, await admin.get_agent("keeper")):
            assert shown.memory == cpb.AgentMemory(recall_top_k=2, extract=True)
            assert list(shown.knowledge.bases) == ["support"]
            assert shown.knowledge.HasField("rerank")
            assert shown.knowledge.rerank is False

        alice = client(t, acme, "alice")
        events = [e async for e in alice.execute("my favourite colour?", agent="keeper")]
        assert final(events).text == "Green, and I may search support only."
        first = t.llm.requests[0]
        assert FACT in str(first["messages"][1]["content"])  # recalled: recall_top_k 2
        assert "only these knowledge bases: support." in shown_spec(first)["description"]
        (refused,) = of_kind(events, "tool_call_finished")
        assert "only support" in refused.error.message
        await feature(t).extraction.idle()  # type: ignore[union-attr]
        assert sorted(await texts(t, acme, "alice")) == sorted([FACT, LIKES])  # extracted

        plain = agents_pb2.Agent(id="keeper", instructions="You help.")
        updated = await admin.update_agent(plain)
        assert not updated.HasField("memory")
        assert not updated.HasField("knowledge")
        assert not (await admin.get_agent("keeper")).HasField("knowledge")
        assert (await admin.get_agent("keeper@1")).knowledge.bases == ["support"]


async def test_bad_memory_and_knowledge_keys_are_refused_with_the_field_named(
    tmp_path: Path, pgvector_socket: str
) -> None:
    async with memory_server(tmp_path, "sqlite", pgvector_socket, []) as t:
        key, plaintext = new_key("acme", "admin", ("admin",))
        await t.server.durable.api_keys.add(key)
        admin = t.running.client(api_key=plaintext, timeout=20)
        for bad, field in (
            ({"memory": cpb.AgentMemory(recall_top_k=51)}, "agent.memory.recall_top_k"),
            (
                {"knowledge": agents_pb2.AgentKnowledge(bases=["support", "Not An Id"])},
                "agent.knowledge.bases[1]",
            ),
            (
                {"knowledge": agents_pb2.AgentKnowledge(bases=[f"kb{n}" for n in range(33)])},
                "agent.knowledge.bases",
            ),
        ):
            with pytest.raises(client_errors.InvalidArgumentError) as refused:
                await admin.create_agent(agents_pb2.Agent(id="bad", **bad))
            assert [v.field for v in refused.value.field_violations] == [field]
        # Set and empty: the agent asks nothing of its own (the server's settings).
        empty = await admin.create_agent(
            agents_pb2.Agent(id="empty", knowledge=agents_pb2.AgentKnowledge())
        )
        assert not empty.HasField("knowledge")
        with pytest.raises(client_errors.NotFoundError):
            await admin.get_agent("bad")
