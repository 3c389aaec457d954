"""Knowledge bases through the real server (SQLite and PostgreSQL with pgvector), the
fake embedder behind the real `openai` client: three documents (Markdown, HTML and a PDF
made here) added by RPC; a question finds the right document and chunk, an off-topic one
nothing; only the base's tenant sees it; only an admin role changes it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from sqlalchemy import text

from agentd.v1 import memory_pb2 as mpb
from agentd.v1 import memory_pb2_grpc as mpb_grpc
from records.keys import new_key
from stores.sql.engine import migrate
from tests.contract.test_knowledge_bases import HTML, MARKDOWN, PDF_TEXT, tiny_pdf
from tests.integration.harness import final, of_kind
from tests.integration.trust import Trust, trusted
from tests.pgvector_server import pgvector_database

KNOWLEDGE = {
    "embedding_model": "fake-embedding",
    "embedding_dimensions": 256,
    "knowledge_chunk_tokens": 20,
    "knowledge_chunk_overlap": 4,
    "knowledge_score_threshold": 0.3,
}
WARRANTY = "How long is the warranty of the X200 router?"


@asynccontextmanager
async def knowledge_server(
    tmp_path: Path,
    backend: str,
    socket: str,
    replies: list[dict[str, Any]] | None = None,
    **settings: Any,
) -> AsyncIterator[Trust]:
    if backend == "sqlite":
        async with trusted(tmp_path, replies or [], **{**KNOWLEDGE, **settings}) as t:
            yield t
        return
    async with pgvector_database(socket) as url:
        await migrate(url)
        options = {**KNOWLEDGE, **settings, "database_url": url}
        async with trusted(tmp_path, replies or [], **options) as t:
            yield t


async def keys(t: Trust) -> dict[str, list[tuple[str, str]]]:
    """Call metadata of an acme admin, an acme member and a globex admin."""
    made = {}
    for name, tenant, roles in (
        ("admin", "acme", ("admin", "member")),
        ("member", "acme", ("member",)),
        ("other", "globex", ("admin", "member")),
    ):
        key, plaintext = new_key(tenant, f"{name}-{tenant}", roles)
        await t.server.durable.api_keys.add(key)
        made[name] = [("authorization", f"Bearer {plaintext}")]
    return made


async def add_three(stub: Any, md: list[tuple[str, str]]) -> dict[str, mpb.KnowledgeDocument]:
    added = {}
    for name, media_type, content in (
        ("returns.md", "text/markdown", MARKDOWN),
        ("shipping.html", "text/html", HTML),
        ("warranty.pdf", "application/pdf", tiny_pdf(PDF_TEXT)),
    ):
        request = mpb.AddDocumentRequest(
            knowledge_base_id="policies", name=name, media_type=media_type, content=content
        )
        added[name] = await stub.AddDocument(request, metadata=md)
    return added


async def code_of(call: Any) -> grpc.StatusCode:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call
    return refused.value.code()


@pytest.mark.parametrize("backend", ["sqlite", "pgvector"])
async def test_documents_added_by_rpc_are_found_with_their_source_by_their_tenant_only(
    tmp_path: Path, backend: str, pgvector_socket: str
) -> None:
    async with knowledge_server(tmp_path, backend, pgvector_socket) as t:
        md = await keys(t)
        stub = mpb_grpc.MemoryServiceStub(t.running.channel)
        create = mpb.CreateKnowledgeBaseRequest(knowledge_base_id="policies", display_name="P")
        assert await code_of(stub.CreateKnowledgeBase(create, metadata=md["member"])) == (
            grpc.StatusCode.PERMISSION_DENIED
        )
        made = await stub.CreateKnowledgeBase(create, metadata=md["admin"])
        assert (made.knowledge_base_id, made.display_name) == ("policies", "P")
        assert await code_of(stub.CreateKnowledgeBase(create, metadata=md["admin"])) == (
            grpc.StatusCode.ALREADY_EXISTS
        )
        added = await add_three(stub, md["admin"])
        assert all(d.chunk_count >= 1 for d in added.values())
        assert added["warranty.pdf"].media_type == "application/pdf"

        listed = await stub.ListDocuments(
            mpb.ListDocumentsRequest(knowledge_base_id="policies", page_size=2),
            metadata=md["member"],
        )
        rest = await stub.ListDocuments(
            mpb.ListDocumentsRequest(
                knowledge_base_id="policies", page_size=2, page_token=listed.next_page_token
            ),
            metadata=md["member"],
        )
        names = [d.name for d in [*listed.documents, *rest.documents]]
        assert names == ["returns.md", "shipping.html", "warranty.pdf"]
        assert not rest.next_page_token

        search = mpb.SearchKnowledgeRequest(knowledge_base_id="policies", query=WARRANTY)
        found = await stub.SearchKnowledge(search, metadata=md["member"])
        top = found.hits[0].citation
        assert (top.document_id, top.chunk_index) == (added["warranty.pdf"].document_id, 0)
        assert top.knowledge_base_id == "policies"
        assert top.score >= 0.3
        assert "24 months" in found.hits[0].text
        assert top.snippet
        assert found.hits[0].text.startswith(top.snippet)
        shipping = await stub.SearchKnowledge(
            mpb.SearchKnowledgeRequest(
                knowledge_base_id="policies", query="How long does standard shipping take?"
            ),
            metadata=md["member"],
        )
        assert shipping.hits[0].citation.document_id == added["shipping.html"].document_id
        off_topic = await stub.SearchKnowledge(
            mpb.SearchKnowledgeRequest(
                knowledge_base_id="policies", query="quantum chromodynamics lattice gluons"
            ),
            metadata=md["member"],
        )
        assert not off_topic.hits

        other = md["other"]
        assert not (
            await stub.ListKnowledgeBases(mpb.ListKnowledgeBasesRequest(), metadata=other)
        ).knowledge_bases
        pdf_id = added["warranty.pdf"].document_id
        for call in (
            stub.SearchKnowledge(search, metadata=other),
            stub.ListDocuments(
                mpb.ListDocumentsRequest(knowledge_base_id="policies"), metadata=other
            ),
            stub.AddDocument(
                mpb.AddDocumentRequest(
                    knowledge_base_id="policies", media_type="text/plain", content=b"x"
                ),
                metadata=other,
            ),
            stub.DeleteDocument(mpb.DeleteDocumentRequest(document_id=pdf_id), metadata=other),
            stub.DeleteKnowledgeBase(
                mpb.DeleteKnowledgeBaseRequest(knowledge_base_id="policies"), metadata=other
            ),
        ):
            assert await code_of(call) == grpc.StatusCode.NOT_FOUND
        mine = await stub.ListKnowledgeBases(mpb.ListKnowledgeBasesRequest(), metadata=md["member"])
        assert [b.knowledge_base_id for b in mine.knowledge_bases] == ["policies"]

        delete_pdf = mpb.DeleteDocumentRequest(document_id=pdf_id)
        assert await code_of(stub.DeleteDocument(delete_pdf, metadata=md["member"])) == (
            grpc.StatusCode.PERMISSION_DENIED
        )
        gone = await stub.DeleteDocument(delete_pdf, metadata=md["admin"])
        assert gone.chunks_deleted == added["warranty.pdf"].chunk_count
        after = await stub.SearchKnowledge(search, metadata=md["member"])
        assert pdf_id not in {h.citation.document_id for h in after.hits}

        dropped = await stub.DeleteKnowledgeBase(
            mpb.DeleteKnowledgeBaseRequest(knowledge_base_id="policies"), metadata=md["admin"]
        )
        assert dropped.chunks_deleted == sum(
            d.chunk_count for n, d in added.items() if n != "warranty.pdf"
        )
        async with t.server.durable.database.engine.connect() as connection:
            chunks = await connection.scalar(
                text("SELECT count(*) FROM knowledge_items WHERE kind = 'chunk'")
            )
            documents = await connection.scalar(text("SELECT count(*) FROM knowledge_documents"))
        assert (chunks, documents) == (0, 0)


async def test_bad_documents_are_refused_with_the_field_at_fault(
    tmp_path: Path, pgvector_socket: str
) -> None:
    async with knowledge_server(tmp_path, "sqlite", pgvector_socket) as t:
        md = (await keys(t))["admin"]
        stub = mpb_grpc.MemoryServiceStub(t.running.channel)
        assert (
            await code_of(
                stub.CreateKnowledgeBase(
                    mpb.CreateKnowledgeBaseRequest(knowledge_base_id="Bad Id"), metadata=md
                )
            )
            == grpc.StatusCode.INVALID_ARGUMENT
        )
        await stub.CreateKnowledgeBase(
            mpb.CreateKnowledgeBaseRequest(knowledge_base_id="kb"), metadata=md
        )
        for media_type, content in (("image/png", b"x"), ("application/pdf", b"%PDF-1.4 no")):
            request = mpb.AddDocumentRequest(
                knowledge_base_id="kb", media_type=media_type, content=content
            )
            assert await code_of(stub.AddDocument(request, metadata=md)) == (
                grpc.StatusCode.INVALID_ARGUMENT
            )
        listed = await stub.ListDocuments(
            mpb.ListDocumentsRequest(knowledge_base_id="kb"), metadata=md
        )
        assert not listed.documents


def searched(query: str, answer: str) -> list[dict[str, Any]]:
    call = {"name": "search_knowledge", "arguments": {"query": query, "knowledge_base": "policies"}}
    return [{"tool_calls": [call]}, {"text": answer}]


async def test_the_answer_cites_the_passages_its_search_retrieved(
    tmp_path: Path, pgvector_socket: str
) -> None:
    replies = [
        *searched(WARRANTY, "24 months [doc#0]"),
        *searched(WARRANTY, "I cannot see that knowledge base"),
    ]
    async with knowledge_server(tmp_path, "sqlite", pgvector_socket, replies) as t:
        md = await keys(t)
        for tenant in ("acme", "globex"):
            await t.grant(tenant, "role:member", "search_knowledge", "read")
        stub = mpb_grpc.MemoryServiceStub(t.running.channel)
        await stub.CreateKnowledgeBase(
            mpb.CreateKnowledgeBaseRequest(knowledge_base_id="policies"), metadata=md["admin"]
        )
        added = await add_three(stub, md["admin"])
        pdf = added["warranty.pdf"]

        member = t.running.client(api_key=md["member"][0][1].removeprefix("Bearer "), timeout=20)
        events = [e async for e in member.execute(WARRANTY, tools=["search_knowledge"])]
        answer = final(events)
        assert answer.text == "24 months [doc#0]"
        top = answer.citations[0]
        assert (top.knowledge_base_id, top.document_id, top.chunk_index) == (
            "policies",
            pdf.document_id,
            0,
        )
        assert top.score >= 0.3
        assert "24 months" in top.snippet
        assert [c.score for c in answer.citations] == sorted(
            (c.score for c in answer.citations), reverse=True
        )
        task = await member.get_task(events[0].task_id)
        assert list(task.citations) == list(answer.citations)

        other = t.running.client(api_key=md["other"][0][1].removeprefix("Bearer "), timeout=20)
        events = [e async for e in other.execute(WARRANTY, tools=["search_knowledge"])]
        assert final(events).text == "I cannot see that knowledge base"
        assert not final(events).citations
        finished = of_kind(events, "tool_call_finished")
        assert "24 months" not in finished[0].text
