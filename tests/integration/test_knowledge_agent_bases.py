"""An agent names the knowledge bases it may search (`knowledge: {bases: [...]}`), through
the real server (SQLite and PostgreSQL with pgvector), the fake model and /v1/embeddings:
its tasks (and ListTools for it) are shown `search_knowledge` with those bases listed; a
call naming another base is a failed tool call the model sees (audited), one naming none
searches the only one, and the answer cites it. An agent naming no bases keeps every base
of the tenant, and the grants still decide whether the tool may be used at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict

from agentd.v1 import memory_pb2 as mpb
from agentd.v1 import memory_pb2_grpc as mpb_grpc
from records.keys import new_key
from tests.contract.test_knowledge_rerank import QUESTION
from tests.integration.harness import final, of_kind
from tests.integration.test_knowledge_rerank import server, two_documents
from tests.integration.test_knowledge_rpcs import keys
from tests.integration.trust import Trust

SCOPED = "id: scoped\ntools: [search_knowledge]\nknowledge:\n  bases: [support]\n"
SECRET = "The X200 router's internal margin is 41 percent of its price."


def ask(knowledge_base: str | None) -> dict[str, Any]:
    arguments = {"query": QUESTION}
    if knowledge_base is not None:
        arguments["knowledge_base"] = knowledge_base
    return {"tool_calls": [{"name": "search_knowledge", "arguments": arguments}]}


async def internal_base(t: Trust, md: list[tuple[str, str]]) -> str:
    stub = mpb_grpc.MemoryServiceStub(t.running.channel)
    create = mpb.CreateKnowledgeBaseRequest(knowledge_base_id="internal")
    await stub.CreateKnowledgeBase(create, metadata=md)
    added = await stub.AddDocument(
        mpb.AddDocumentRequest(
            knowledge_base_id="internal",
            name="margins",
            media_type="text/plain",
            content=SECRET.encode(),
        ),
        metadata=md,
    )
    return str(added.document_id)


def agents(tmp_path: Path) -> Path:
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "scoped.yaml").write_text(SCOPED)
    return folder


def shown_spec(request: dict[str, Any]) -> dict[str, Any]:
    tools = [t["function"] for t in request["tools"]]
    (tool,) = [t for t in tools if t["name"] == "search_knowledge"]
    assert isinstance(tool, dict)
    return tool


@pytest.mark.parametrize("backend", ["sqlite", "pgvector"])
async def test_an_agent_searches_only_the_bases_it_names(
    tmp_path: Path, backend: str, pgvector_socket: str
) -> None:
    replies = [
        ask("internal"),  # the scoped agent: refused
        ask(None),  # the only base it may search
        {"text": "24 months [doc#0]"},
        ask("internal"),  # no agent: any base of the tenant
        {"text": "41 percent"},
    ]
    settings = {"agents_dir": agents(tmp_path), "rerank_model": None}
    async with server(tmp_path, backend, pgvector_socket, replies, **settings) as t:
        md = await keys(t)
        ids = await two_documents(t, md["admin"])
        secret = await internal_base(t, md["admin"])
        await t.grant("acme", "role:member", "search_knowledge", "read")
        client = t.running.client(api_key=md["member"][0][1].removeprefix("Bearer "), timeout=20)

        (listed,) = await client.list_tools(agent="scoped")
        assert "only these knowledge bases: support." in listed.description
        assert list(MessageToDict(listed.parameters_schema)["required"]) == ["query"]
        (plain,) = [s for s in await client.list_tools() if s.name == "search_knowledge"]
        assert "only these" not in plain.description

        events = [e async for e in client.execute("warranty?", agent="scoped")]
        spec = shown_spec(t.llm.requests[0])
        assert "only these knowledge bases: support." in spec["description"]
        assert spec["parameters"]["required"] == ["query"]
        refused, searched = of_kind(events, "tool_call_finished")
        assert refused.HasField("error")
        assert "'internal' is not one this agent may search" in refused.error.message
        assert "only support" in refused.error.message
        assert SECRET not in str(t.llm.requests[1]["messages"])
        assert "only support" in str(t.llm.requests[1]["messages"])  # the model was told
        passages = MessageToDict(searched)["result"]["passages"]
        assert {p["citation"]["knowledge_base_id"] for p in passages} == {"support"}
        answer = final(events)
        assert answer.text == "24 months [doc#0]"
        assert answer.citations
        assert {c.knowledge_base_id for c in answer.citations} == {"support"}
        assert {c.document_id for c in answer.citations} <= set(ids)
        records = [r for r in await t.tool_records("acme") if r.tool_name == "search_knowledge"]
        assert [(r.arguments.get("knowledge_base"), r.outcome) for r in records] == [
            ("internal", "failed"),
            (None, "ok"),
        ]

        events = [e async for e in client.execute("margin?", tools=["search_knowledge"])]
        assert "only these" not in shown_spec(t.llm.requests[-2])["description"]
        (found,) = of_kind(events, "tool_call_finished")
        cited = MessageToDict(found)["result"]["passages"][0]["citation"]
        assert (cited["knowledge_base_id"], cited["document_id"]) == ("internal", secret)


async def test_the_grants_still_decide(tmp_path: Path, pgvector_socket: str) -> None:
    replies = [ask("support"), {"text": "I cannot search."}]
    settings = {"agents_dir": agents(tmp_path), "rerank_model": None}
    async with server(tmp_path, "sqlite", pgvector_socket, replies, **settings) as t:
        md = await keys(t)
        await two_documents(t, md["admin"])
        key, plaintext = new_key("acme", "viewer", ("viewer",))  # no grant of search_knowledge
        await t.server.durable.api_keys.add(key)
        await t.grant("acme", "role:member", "search_knowledge", "read")
        viewer = t.running.client(api_key=plaintext, timeout=20)
        events = [e async for e in viewer.execute("warranty?", agent="scoped")]
        (refused,) = of_kind(events, "tool_call_finished")
        assert "not available to this task" in refused.error.message
        assert final(events).text == "I cannot search."
        assert not final(events).citations


async def test_a_base_the_call_leaves_out_is_held_to_the_grants_argument_rules(
    tmp_path: Path, pgvector_socket: str
) -> None:
    """A grant's argument rule lets an absent argument pass; the agent's one base that the
    search then uses is checked against it all the same."""
    replies = [ask(None), {"text": "I may not search it."}, ask("support"), {"text": "no"}]
    settings = {"agents_dir": agents(tmp_path), "rerank_model": None}
    async with server(tmp_path, "sqlite", pgvector_socket, replies, **settings) as t:
        md = await keys(t)
        await two_documents(t, md["admin"])
        only_public: dict[str, tuple[str, ...]] = {"knowledge_base": ("public",)}
        await t.grant("acme", "role:member", "search_knowledge", "read", arguments=only_public)
        client = t.running.client(api_key=md["member"][0][1].removeprefix("Bearer "), timeout=20)
        shown = []
        for _ in range(2):  # the base left out, then named
            events = [e async for e in client.execute("warranty?", agent="scoped")]
            (refused,) = of_kind(events, "tool_call_finished")
            assert refused.HasField("error")
            assert "passages" not in MessageToDict(refused).get("result", {})
            assert not final(events).citations
            shown.append(refused.error.message)
        left_out, named = shown
        assert "the grants do not allow searching knowledge base 'support'" in left_out
        assert "'knowledge_base' is not under public" in left_out
        assert "'knowledge_base' is not under public" in named
        records = [r for r in await t.tool_records("acme") if r.tool_name == "search_knowledge"]
        assert [(r.arguments.get("knowledge_base"), r.outcome) for r in records] == [
            (None, "failed"),
            ("support", "denied"),
        ]
