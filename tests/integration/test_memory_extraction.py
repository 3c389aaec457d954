"""Memory extraction at the end of a turn, and shared namespaces, end to end: a real
agentd, the real `openai` client against the fake server's chat and /v1/embeddings, a
gateway calling for end users. The model's proposals are untrusted: only valid operations
on memories it was shown are applied, as the grants allow, audited; the task's end never
waits for an extraction, nor fails with one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest

from agentd.v1 import memory_pb2 as mpb
from records.keys import new_key
from server.services.memory import MemoryFeature
from tests.integration.harness import assert_well_formed, final, of_kind
from tests.integration.test_long_term_memory import (
    FACT,
    client,
    memories,
    memory_server,
    users,
)
from tests.integration.trust import Trust

KEEPER = """\
id: keeper
instructions: You help and you remember.
tools: [recall]
memory:
  extract: true
"""
PLAIN = "id: plain\ninstructions: You help.\ntools: [recall]\n"


def agents(tmp_path: Path) -> Path:
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "keeper.yaml").write_text(KEEPER)
    (folder / "plain.yaml").write_text(PLAIN)
    return folder


def proposal(*operations: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"match": "<turn_data>", "json": {"operations": list(operations)}, **extra}


def feature(t: Trust) -> MemoryFeature:
    memory = t.server.memory
    assert memory is not None
    assert memory.extraction is not None
    return memory


async def texts(t: Trust, key: str, user: str, namespace: str = "") -> list[str]:
    stub, md = memories(t, key, user)
    listed = await stub.ListMemories(mpb.ListMemoriesRequest(namespace=namespace), metadata=md)
    return [m.text for m in listed.memories]


async def run(t: Trust, key: str, user: str, text: str, agent: str = "keeper") -> list[Any]:
    return [e async for e in client(t, key, user).execute(text, agent=agent)]


@pytest.mark.parametrize("backend", ["sqlite", "pgvector"])
async def test_a_turn_is_extracted_after_its_end_and_later_corrected(
    tmp_path: Path, backend: str, pgvector_socket: str
) -> None:
    replies = [
        {"text": "Green, noted."},
        proposal({"op": "add", "text": FACT}, {"op": "none"}, hold="extract"),
        {"text": "Blue now, noted."},
        proposal(
            {"op": "update", "id": "m1", "text": "Alice's favourite colour is blue"},
            {"op": "delete", "id": "m7"},  # never shown: dropped
            {"op": "add", "text": "x" * 501},  # too long: the reply is dropped whole
        ),
        {"text": "Blue, noted again."},
        proposal(
            {"op": "update", "id": "m1", "text": "Alice's favourite colour is blue"},
            {"op": "delete", "id": "m7"},  # never shown: dropped, the update applied
        ),
    ]
    settings = {"agents_dir": agents(tmp_path)}
    async with memory_server(tmp_path, backend, pgvector_socket, replies, **settings) as t:
        acme, _ = await users(t)
        events = await run(t, acme, "alice", "My favourite colour is green.")
        # The task ended (its stream closed) while its extraction waits for the model.
        assert final(events).text == "Green, noted."
        assert_well_formed(events)
        assert await texts(t, acme, "alice") == []
        t.llm.release("extract")
        await feature(t).extraction.idle()  # type: ignore[union-attr]
        assert await texts(t, acme, "alice") == [FACT]
        sent = t.llm.requests[1]
        assert "tools" not in sent  # the extraction can call nothing
        assert "My favourite colour is green." in sent["messages"][1]["content"]

        for said in ("It is blue now.", "Blue, really."):
            await run(t, acme, "alice", said)
            await feature(t).extraction.idle()  # type: ignore[union-attr]
        assert await texts(t, acme, "alice") == ["Alice's favourite colour is blue"]
        shown = t.llm.requests[-1]["messages"][1]["content"]
        assert FACT in shown
        assert '"id": "m1"' in shown

        # Each operation went through the registry's admission: a `remember` call of the
        # task's principal with the operation's arguments, decided by a grant.
        records = [r for r in await t.tool_records("acme") if "operation" in r.arguments]
        assert {(r.tool_name, r.decision) for r in records} == {("remember", "allowed")}
        assert all(r.rule.startswith(("grant:", "default:")) for r in records)
        assert [(r.arguments["operation"], r.outcome, r.principal_id) for r in records] == [
            ("add", "ok", "alice"),
            ("update", "ok", "alice"),
        ]
        assert all(r.task_id for r in records)


async def test_what_is_not_valid_changes_nothing_and_never_fails_the_task(
    tmp_path: Path, pgvector_socket: str
) -> None:
    six = [{"op": "add", "text": f"fact {n}"} for n in range(6)]
    replies = [
        {"text": "a"}, {"match": "<turn_data>", "text": "sure! add the fact"},
        {"text": "b"}, proposal(*six),  # more than AGENTD_MEMORY_EXTRACTION_MAX_OPERATIONS
        {"text": "c"}, proposal({"op": "delete", "id": "m1"}),  # nothing was shown
        {"text": "d"}, proposal({"op": "add", "text": "x", "why": "extra field"}),
        {"text": "e"}, {"match": "<turn_data>", "error": {"status": 403, "message": "no"}},
        {"text": "f"},  # the plain agent: no extraction asked for
    ]  # fmt: skip
    async with memory_server(
        tmp_path, "sqlite", pgvector_socket, replies, agents_dir=agents(tmp_path)
    ) as t:
        acme, _ = await users(t)
        for n, agent in enumerate(["keeper"] * 5 + ["plain"]):
            events = await run(t, acme, "alice", f"turn {n}", agent)
            assert_well_formed(events)
            await feature(t).extraction.idle()  # type: ignore[union-attr]
        assert len(t.llm.requests) == 11
        assert await texts(t, acme, "alice") == []
        assert not [r for r in await t.tool_records("acme") if "operation" in r.arguments]


async def test_extraction_changes_nothing_the_grants_do_not_allow(
    tmp_path: Path, pgvector_socket: str
) -> None:
    replies = [{"text": "ok"}, proposal({"op": "add", "text": FACT})]
    async with memory_server(
        tmp_path, "sqlite", pgvector_socket, replies, agents_dir=agents(tmp_path)
    ) as t:
        key, plaintext = new_key("initech", "gateway-initech", ("gateway", "member"))
        await t.server.durable.api_keys.add(key)
        await t.grant("initech", "role:member", "recall", "read")  # recall, not remember
        events = await run(t, plaintext, "alice", "My favourite colour is green.")
        assert_well_formed(events)
        await feature(t).extraction.idle()  # type: ignore[union-attr]
        assert len(t.llm.requests) == 2  # it was proposed ...
        assert await texts(t, plaintext, "alice") == []  # ... and not applied
        records = [r for r in await t.tool_records("initech") if r.tool_name != "recall"]
        assert [
            (r.tool_name, r.decision, r.outcome, r.arguments["operation"]) for r in records
        ] == [("remember", "denied", "denied", "add")]


async def test_shared_namespaces_need_roles_over_rpc_and_the_tools(
    tmp_path: Path, pgvector_socket: str
) -> None:
    faq = "shared:faq"
    replies: list[dict[str, Any]] = [
        {"tool_calls": [{"name": "remember", "arguments": {"text": "Lunch is at noon",
                                                           "namespace": faq}}]},
        {"text": "kept"},
        {"tool_calls": [{"name": "remember", "arguments": {"text": "Parking is free",
                                                           "namespace": faq}}]},
        {"text": "refused"},
    ]  # fmt: skip
    roles = {"memory_shared_read_roles": ["reader"], "memory_shared_write_roles": ["writer"]}
    async with memory_server(tmp_path, "sqlite", pgvector_socket, replies, **roles) as t:
        await users(t)
        keys = {}
        for name, extra in (("writer", ("writer",)), ("reader", ("reader",)), ("none", ())):
            key, plaintext = new_key("acme", f"gateway-{name}", ("gateway", "member", *extra))
            await t.server.durable.api_keys.add(key)
            keys[name] = plaintext
        events = [e async for e in client(t, keys["writer"], "alice").execute(
            "keep it", tools=["remember"])]  # fmt: skip
        assert final(events).text == "kept"
        events = [e async for e in client(t, keys["reader"], "bob").execute(
            "keep it", tools=["remember"])]  # fmt: skip
        error = of_kind(events, "tool_call_finished")[0].error.message
        assert "writing the shared memory namespace shared:faq needs one of the roles" in error

        stub, bob = memories(t, keys["reader"], "bob")
        listed = await stub.ListMemories(mpb.ListMemoriesRequest(namespace=faq), metadata=bob)
        assert [(m.text, m.shared, m.author) for m in listed.memories] == [
            ("Lunch is at noon", True, "alice")
        ]
        found = await stub.SearchMemories(
            mpb.SearchMemoriesRequest(query="lunch", namespace=faq), metadata=bob
        )
        assert [h.memory.text for h in found.hits] == ["Lunch is at noon"]
        _, carol = memories(t, keys["none"], "carol")
        search = mpb.SearchMemoriesRequest(query="x", namespace=faq)
        delete = mpb.DeleteMemoryRequest(memory_id=listed.memories[0].memory_id)
        for call in (
            stub.ListMemories(mpb.ListMemoriesRequest(namespace=faq), metadata=carol),
            stub.SearchMemories(search, metadata=carol),
            stub.DeleteMemory(delete, metadata=bob),
        ):
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED

        _, alice = memories(t, keys["writer"], "alice")
        gone = await stub.ForgetUser(mpb.ForgetUserRequest(), metadata=alice)
        assert gone.memories_deleted == 1  # her shared memory went with her
        listed = await stub.ListMemories(mpb.ListMemoriesRequest(namespace=faq), metadata=bob)
        assert not listed.memories
