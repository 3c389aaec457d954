"""The knowledge base catalog on every backend (in process, SQLite, PostgreSQL): one
tenant's bases and documents only, ids unique per tenant, pages in id order, a base's
deletion taking its documents' records along."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from records.knowledge.items import DocumentRecord, KnowledgeBaseRecord, Vectors
from records.paging import KeyCursor
from stores.knowledge.catalog import (
    InMemoryKnowledgeCatalog,
    KnowledgeCatalog,
    SqlKnowledgeCatalog,
)
from stores.sql.engine import create_engine, migrate
from tests.paging import every_page, page_sizes
from tests.pgvector_server import pgvector_database

NOW = datetime(2026, 11, 27, 1, 0, tzinfo=UTC)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
async def catalog(
    request: pytest.FixtureRequest, tmp_path: Path, pgvector_socket: str
) -> AsyncIterator[KnowledgeCatalog]:
    if request.param == "memory":
        yield InMemoryKnowledgeCatalog()
        return
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}"
        await migrate(url)
        engine = create_engine(url)
        try:
            yield SqlKnowledgeCatalog(engine)
        finally:
            await engine.dispose()
        return
    async with pgvector_database(pgvector_socket) as url:
        await migrate(url)
        engine = create_engine(url)
        try:
            yield SqlKnowledgeCatalog(engine)
        finally:
            await engine.dispose()


def document(tenant: str, document_id: str, base: str) -> DocumentRecord:
    return DocumentRecord(
        tenant, document_id, base, f"{document_id}.md", "text/markdown", 10, 2, NOW
    )


async def test_bases_and_documents_are_one_tenant_s(catalog: KnowledgeCatalog) -> None:
    assert await catalog.create_base(KnowledgeBaseRecord("acme", "kb", "Policies", NOW))
    assert not await catalog.create_base(KnowledgeBaseRecord("acme", "kb", "again", NOW))
    assert await catalog.create_base(KnowledgeBaseRecord("globex", "kb", "Theirs", NOW))
    assert await catalog.create_base(KnowledgeBaseRecord("acme", "faq", "FAQ", NOW))

    found = await catalog.get_base("acme", "kb")
    assert found == KnowledgeBaseRecord("acme", "kb", "Policies", NOW)
    assert await catalog.get_base("acme", "nope") is None
    listed = await catalog.list_bases("acme", size=1)
    assert [b.knowledge_base_id for b in listed.items] == ["faq"]
    assert listed.next == KeyCursor(0, "faq")
    rest = await catalog.list_bases("acme", size=5, after=listed.next)
    assert ([b.knowledge_base_id for b in rest.items], rest.next) == (["kb"], None)

    for doc in ("doc_1", "doc_2", "doc_3"):
        await catalog.add_document(document("acme", doc, "kb"))
    await catalog.add_document(document("acme", "doc_4", "faq"))
    await catalog.add_document(document("globex", "doc_9", "kb"))
    assert await catalog.get_document("acme", "doc_1") == document("acme", "doc_1", "kb")
    assert await catalog.get_document("globex", "doc_1") is None
    page = await catalog.list_documents("acme", "kb", size=2)
    assert [d.document_id for d in page.items] == ["doc_1", "doc_2"]
    assert page.next == KeyCursor(0, "doc_2")
    page = await catalog.list_documents("acme", "kb", size=2, after=page.next)
    assert ([d.document_id for d in page.items], page.next) == (["doc_3"], None)

    assert not await catalog.delete_document("globex", "doc_1")
    assert await catalog.delete_document("acme", "doc_1")
    assert not await catalog.delete_document("acme", "doc_1")
    assert not await catalog.delete_base("globex", "faq")
    assert await catalog.delete_base("acme", "kb")
    assert await catalog.get_base("acme", "kb") is None
    assert await catalog.get_document("acme", "doc_2") is None
    assert await catalog.get_document("acme", "doc_4") is not None
    assert await catalog.get_base("globex", "kb") is not None
    assert [
        d.document_id for d in (await catalog.list_documents("globex", "kb", size=9)).items
    ] == ["doc_9"]


@pytest.mark.parametrize("size", [1, 3, 7, 8])
async def test_every_page_of_bases_and_documents_is_read_once(
    catalog: KnowledgeCatalog, size: int
) -> None:
    ids = [f"kb_{n:02d}" for n in range(7)]
    for base_id in reversed(ids):  # stored out of order: listed by id
        await catalog.create_base(KnowledgeBaseRecord("acme", base_id, base_id, NOW))
        await catalog.add_document(document("acme", f"doc_{base_id}", "kb_00"))
    await catalog.create_base(KnowledgeBaseRecord("globex", "kb_99", "Theirs", NOW))
    await catalog.add_document(document("acme", "doc_elsewhere", "kb_01"))

    bases = await every_page(lambda after: catalog.list_bases("acme", size=size, after=after))
    assert [len(p) for p in bases] == page_sizes(7, size)
    assert [b.knowledge_base_id for p in bases for b in p] == ids
    documents = await every_page(
        lambda after: catalog.list_documents("acme", "kb_00", size=size, after=after)
    )
    assert [len(p) for p in documents] == page_sizes(7, size)
    assert [d.document_id for p in documents for d in p] == [f"doc_{i}" for i in ids]


async def test_a_base_deleted_while_a_document_is_ingested_keeps_nothing_of_it() -> None:
    from agent.knowledge.bases import KnowledgeAdmin
    from agent.knowledge.documents import KnowledgeBases
    from agent.llm.embeddings import HashEmbedder
    from core.errors import MemoryNotFoundError
    from core.identity import Principal
    from records.knowledge.items import Scope
    from stores.knowledge.memory import InMemoryKnowledgeStore

    store, catalog = InMemoryKnowledgeStore(), InMemoryKnowledgeCatalog()
    admin = KnowledgeAdmin(catalog, KnowledgeBases(store, HashEmbedder(64)))
    caller = Principal("ops", "acme", ("admin",))
    await admin.create(caller, "kb", "")

    class Deleting(HashEmbedder):
        async def embed(self, texts: Sequence[str]) -> Vectors:
            await catalog.delete_base("acme", "kb")  # another call deletes the base meanwhile
            return await super().embed(texts)

    admin.knowledge.embedder = Deleting(64)
    with pytest.raises(MemoryNotFoundError):
        await admin.add_document(caller, "kb", b"some words to store", "text/plain", "a.txt")
    assert await store.count(Scope("acme", "chunk")) == 0
    assert (await catalog.list_documents("acme", "kb", size=9)).items == ()


async def test_a_base_s_deletion_takes_its_ingestion_jobs_along(
    catalog: KnowledgeCatalog,
) -> None:
    from records.knowledge.jobs import IngestionJob
    from stores.knowledge.jobs import jobs_for

    jobs = jobs_for(catalog)
    for tenant, base in (("acme", "kb"), ("acme", "faq"), ("globex", "kb")):
        assert await catalog.create_base(KnowledgeBaseRecord(tenant, base, "", NOW))
        await catalog.add_document(document(tenant, f"doc_{base}", base))
        job = IngestionJob(tenant, f"ing_{base}", base, f"doc_{base}", "a.md", "text/plain", 9, NOW)
        await jobs.add(job, b"some content" if base == "faq" else None)
    assert await catalog.delete_base("acme", "kb")
    assert await jobs.get("acme", "ing_kb") is None
    assert await catalog.create_base(KnowledgeBaseRecord("acme", "kb", "again", NOW))
    assert (await jobs.list_jobs("acme", "kb", size=9)).items == ()
    assert [j.job_id for j in (await jobs.list_jobs("acme", "faq", size=9)).items] == ["ing_faq"]
    assert [j.job_id for j in (await jobs.list_jobs("globex", "kb", size=9)).items] == ["ing_kb"]
    assert await catalog.delete_base("acme", "faq")
    assert await jobs.content("acme", "ing_faq") is None
    assert await jobs.waiting("acme") == 0
