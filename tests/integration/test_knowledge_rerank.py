"""Reranking through the real server (SQLite and PostgreSQL with pgvector), the fake
server's /v1/embeddings and /v1/rerank behind the real `openai` client: SearchKnowledge
reranks by default when AGENTD_RERANK_MODEL is set (`rerank_score`, `fused_rank`), keeps
the fused order when asked or when the reranker fails, and refuses `rerank: true` without
a reranking model; the `search_knowledge` tool follows the agent's `knowledge: {rerank}`
and charges the reranking tokens to the task."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.json_format import MessageToDict

from agentd.v1 import memory_pb2 as mpb
from agentd.v1 import memory_pb2_grpc as mpb_grpc
from stores.sql.engine import migrate
from tests.contract.test_knowledge_rerank import ANSWER, LOOKALIKE, QUESTION
from tests.integration.harness import of_kind
from tests.integration.test_knowledge_rpcs import code_of, keys
from tests.integration.trust import Trust, trusted
from tests.pgvector_server import pgvector_database

SETTINGS = {
    "embedding_model": "fake-embedding",
    "embedding_dimensions": 256,
    "knowledge_chunk_tokens": 100,
    "knowledge_chunk_overlap": 10,
    "knowledge_score_threshold": 0.3,
    "rerank_model": "fake-rerank",
}


@asynccontextmanager
async def server(
    tmp_path: Path, backend: str, socket: str, replies: list[Any] | None = None, **more: Any
) -> AsyncIterator[Trust]:
    settings = {**SETTINGS, **more}
    if backend == "sqlite":
        async with trusted(tmp_path, replies or [], **settings) as t:
            yield t
        return
    async with pgvector_database(socket) as url:
        await migrate(url)
        async with trusted(tmp_path, replies or [], database_url=url, **settings) as t:
            yield t


async def two_documents(t: Trust, md: list[tuple[str, str]]) -> dict[str, str]:
    stub = mpb_grpc.MemoryServiceStub(t.running.channel)
    create = mpb.CreateKnowledgeBaseRequest(knowledge_base_id="support")
    await stub.CreateKnowledgeBase(create, metadata=md)
    ids = {}
    for name, text in (("answer", ANSWER), ("lookalike", LOOKALIKE)):
        added = await stub.AddDocument(
            mpb.AddDocumentRequest(
                knowledge_base_id="support",
                name=name,
                media_type="text/plain",
                content=text.encode(),
            ),
            metadata=md,
        )
        ids[added.document_id] = name
    return ids


@pytest.mark.parametrize("backend", ["sqlite", "pgvector"])
async def test_search_knowledge_reranks_by_default_and_degrades_to_the_fused_order(
    tmp_path: Path, backend: str, pgvector_socket: str
) -> None:
    async with server(tmp_path, backend, pgvector_socket) as t:
        md = await keys(t)
        ids = await two_documents(t, md["admin"])
        stub = mpb_grpc.MemoryServiceStub(t.running.channel)

        def search(**fields: Any) -> Any:
            request = mpb.SearchKnowledgeRequest(
                knowledge_base_id="support", query=QUESTION, top_k=1, **fields
            )
            return stub.SearchKnowledge(request, metadata=md["member"])

        found = await search()
        (hit,) = found.hits
        assert ids[hit.citation.document_id] == "answer"
        assert hit.HasField("rerank_score")
        assert hit.rerank_score > 0.6
        assert hit.fused_rank == 2
        assert len(t.llm.rerank.requests[-1]["documents"]) == 2

        (fused,) = (await search(rerank=False)).hits
        assert ids[fused.citation.document_id] == "lookalike"
        assert not fused.HasField("rerank_score")
        assert fused.fused_rank == 0
        assert fused.citation.score > hit.citation.score  # cosine, before fusion

        (pooled,) = (await search(rerank=True, rerank_candidates=1)).hits  # raised to top_k
        assert ids[pooled.citation.document_id] == "lookalike"
        assert t.llm.rerank.requests[-1]["documents"] == [LOOKALIKE]
        assert await code_of(search(rerank_candidates=501)) == grpc.StatusCode.INVALID_ARGUMENT

        t.llm.rerank.fail_status = 503
        (kept,) = (await search()).hits
        assert ids[kept.citation.document_id] == "lookalike"
        assert not kept.HasField("rerank_score")


async def test_rerank_without_a_reranking_model_is_refused(
    tmp_path: Path, pgvector_socket: str
) -> None:
    async with server(tmp_path, "sqlite", pgvector_socket, rerank_model=None) as t:
        md = await keys(t)
        ids = await two_documents(t, md["admin"])
        stub = mpb_grpc.MemoryServiceStub(t.running.channel)
        request = mpb.SearchKnowledgeRequest(knowledge_base_id="support", query=QUESTION, top_k=1)
        (hit,) = (await stub.SearchKnowledge(request, metadata=md["member"])).hits
        assert ids[hit.citation.document_id] == "lookalike"
        request.rerank = True
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.SearchKnowledge(request, metadata=md["member"])
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "no reranking model" in (refused.value.details() or "")
        assert t.llm.rerank.requests == []


def ask() -> dict[str, Any]:
    arguments = {"query": QUESTION, "knowledge_base": "support"}
    return {"tool_calls": [{"name": "search_knowledge", "arguments": arguments}]}


async def test_the_tool_follows_the_agent_and_charges_the_reranking(
    tmp_path: Path, pgvector_socket: str
) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    (agents / "plain.yaml").write_text("id: plain\nknowledge:\n  rerank: false\n")
    replies = [ask(), {"text": "24 months"}, ask(), {"text": "24 months"}]
    async with server(tmp_path, "sqlite", pgvector_socket, replies, agents_dir=agents) as t:
        md = await keys(t)
        ids = await two_documents(t, md["admin"])
        await t.grant("acme", "role:member", "search_knowledge", "read")
        client = t.running.client(api_key=md["member"][0][1].removeprefix("Bearer "), timeout=20)

        results, spent = [], []
        for agent in ("", "plain"):
            events = [
                e
                async for e in client.execute("warranty?", tools=["search_knowledge"], agent=agent)
            ]
            results.append(MessageToDict(of_kind(events, "tool_call_finished")[0])["result"])
            usage = of_kind(events, "usage")
            spent.append(sum(u.call.prompt_tokens for u in usage if u.role == "embeddings"))
        reranked, plain = results
        assert reranked["reranked"] is True
        assert ids[reranked["passages"][0]["citation"]["document_id"]] == "answer"
        assert reranked["passages"][0]["rerank_score"] > 0.6
        assert plain["reranked"] is False
        assert ids[plain["passages"][0]["citation"]["document_id"]] == "lookalike"
        assert "rerank_score" not in plain["passages"][0]
        assert len(t.llm.rerank.requests) == 1  # the plain agent's search sent nothing
        # the reranking tokens were charged to the task, with the question's embedding
        rerank = t.llm.rerank.requests[0]
        reranking = (len(rerank["query"]) + sum(len(d) for d in rerank["documents"]) + 3) // 4
        assert spent == [spent[1] + reranking, (len(QUESTION) + 3) // 4]


async def test_the_python_client_asks_for_reranking_or_not(
    tmp_path: Path, pgvector_socket: str
) -> None:
    """`search_knowledge(rerank=...)` of the async and the sync client sets the request's
    `rerank`; left out, the server decides (here: rerank)."""
    import asyncio

    from agentd_client.client import AgentClient
    from agentd_client.sync import AgentClient as SyncClient

    async with server(tmp_path, "sqlite", pgvector_socket) as t:
        md = await keys(t)
        ids = await two_documents(t, md["admin"])
        address = f"127.0.0.1:{t.server.port}"
        async with AgentClient(address, metadata=md["member"]) as client:
            (default,) = await client.search_knowledge("support", QUESTION, top_k=1)
            (fused,) = await client.search_knowledge("support", QUESTION, top_k=1, rerank=False)
        assert ids[default.citation.document_id] == "answer"
        assert default.HasField("rerank_score")
        assert ids[fused.citation.document_id] == "lookalike"
        assert not fused.HasField("rerank_score")

        def sync_search() -> Any:
            with SyncClient(address, metadata=md["member"]) as sync:
                return sync.search_knowledge("support", QUESTION, top_k=1, rerank=False)

        (sync_fused,) = await asyncio.to_thread(sync_search)
        assert ids[sync_fused.citation.document_id] == "lookalike"
