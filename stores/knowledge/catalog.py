"""The knowledge base catalog: which knowledge bases a tenant has and which documents
each holds (their chunks and vectors are in the knowledge store, `Item.namespace` being
the knowledge base's id and `Item.document_id` the document's).

Contract (tests/contract/test_knowledge_catalog.py, on memory, SQLite and PostgreSQL):
every call is one tenant's; another tenant's bases and documents are never found, listed
or deleted. `create_base` returns False when the tenant has the id already. Lists are
pages in id order (ids grow with time): `size` items after the cursor `after` (its id),
with the cursor of the next page when more follow. `delete_base` deletes its documents'
records and its ingestion jobs too, in one step (a base created again with the same id
starts with none).

A document is INGESTING while its chunks are stored, READY once all are, DELETING once
replaced or deleted until its chunks are gone (`records.knowledge.items.DocumentState`).
Searches keep only the chunks of READY documents (`ready_documents`), so a document is
seen whole or not at all. `list_documents` and `get_document` skip DELETING ones."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import Any, Protocol

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    and_,
    delete,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from records.knowledge.items import DocumentRecord, DocumentState, KnowledgeBaseRecord
from records.knowledge.jobs import IngestionJob
from records.paging import KeyCursor, Page, id_after, id_cursor
from stores.sql.times import aware

metadata = MetaData()
bases = Table(
    "knowledge_bases",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column("knowledge_base_id", String(64), primary_key=True),
    Column("display_name", String(256), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
documents = Table(
    "knowledge_documents",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column("document_id", String(64), primary_key=True),
    Column("knowledge_base_id", String(64), nullable=False),
    Column("name", String(256), nullable=False),
    Column("media_type", String(64), nullable=False),
    Column("size_bytes", Integer, nullable=False),
    Column("chunks", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("state", String(16), nullable=False, server_default="READY"),
    Column("external_id", String(256), nullable=False, server_default=""),
    Column("job_id", String(64), nullable=False, server_default=""),
)

jobs = Table(
    "knowledge_ingestion_jobs",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column("job_id", String(64), primary_key=True),
    Column("knowledge_base_id", String(64), nullable=False),
    Column("document_id", String(64), nullable=False),
    Column("external_id", String(256), nullable=False),
    Column("name", String(256), nullable=False),
    Column("media_type", String(64), nullable=False),
    Column("size_bytes", BigInteger, nullable=False),
    Column("state", String(16), nullable=False),
    Column("background", Boolean, nullable=False),
    Column("chunks_done", Integer, nullable=False),
    Column("chunks_total", Integer, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("owner", String(256), nullable=False),
    Column("lease_until", DateTime(timezone=True), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=True),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("error_reason", String(64), nullable=False),
    Column("error", String(1024), nullable=False),
    Column("content", LargeBinary, nullable=True),
)
"""Ingestion jobs (`stores.knowledge.sql_jobs`), here so that `delete_base` takes a base's
jobs along."""


class KnowledgeCatalog(Protocol):
    async def create_base(self, base: KnowledgeBaseRecord) -> bool: ...

    async def get_base(self, tenant: str, knowledge_base_id: str) -> KnowledgeBaseRecord | None: ...

    async def list_bases(
        self, tenant: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[KnowledgeBaseRecord, KeyCursor]: ...

    async def delete_base(self, tenant: str, knowledge_base_id: str) -> bool: ...

    async def add_document(self, document: DocumentRecord) -> None: ...

    async def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None: ...

    async def list_documents(
        self, tenant: str, knowledge_base_id: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[DocumentRecord, KeyCursor]: ...

    async def delete_document(self, tenant: str, document_id: str) -> bool: ...

    async def set_document_state(
        self, tenant: str, document_id: str, state: DocumentState
    ) -> bool: ...

    async def ready_documents(self, tenant: str, document_ids: Collection[str]) -> set[str]:
        """Those of `document_ids` that are READY."""
        ...

    async def deleting_documents(self, *, limit: int) -> list[DocumentRecord]:
        """DELETING documents of every tenant (whose chunks are still to be removed)."""
        ...


class InMemoryKnowledgeCatalog:
    """In-process catalog (tests, and servers without a database)."""

    def __init__(self) -> None:
        self._bases: dict[tuple[str, str], KnowledgeBaseRecord] = {}
        self._documents: dict[tuple[str, str], DocumentRecord] = {}
        self.jobs: dict[tuple[str, str], IngestionJob] = {}
        """The ingestion jobs (`stores.knowledge.jobs.InMemoryIngestionJobs`'), kept here so
        that a base's deletion takes them along."""
        self.job_contents: dict[tuple[str, str], bytes] = {}

    async def create_base(self, base: KnowledgeBaseRecord) -> bool:
        key = (base.tenant, base.knowledge_base_id)
        if key in self._bases:
            return False
        self._bases[key] = replace(base)
        return True

    async def get_base(self, tenant: str, knowledge_base_id: str) -> KnowledgeBaseRecord | None:
        return self._bases.get((tenant, knowledge_base_id))

    async def list_bases(
        self, tenant: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[KnowledgeBaseRecord, KeyCursor]:
        start = id_after(after)
        found = [b for (t, i), b in self._bases.items() if t == tenant and i > start]
        return base_page(sorted(found, key=lambda b: b.knowledge_base_id), size)

    async def delete_base(self, tenant: str, knowledge_base_id: str) -> bool:
        if self._bases.pop((tenant, knowledge_base_id), None) is None:
            return False
        for key, doc in list(self._documents.items()):
            if key[0] == tenant and doc.knowledge_base_id == knowledge_base_id:
                del self._documents[key]
        for key, job in list(self.jobs.items()):
            if key[0] == tenant and job.knowledge_base_id == knowledge_base_id:
                del self.jobs[key]
                self.job_contents.pop(key, None)
        return True

    async def add_document(self, document: DocumentRecord) -> None:
        self._documents[(document.tenant, document.document_id)] = document

    async def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None:
        found = self._documents.get((tenant, document_id))
        return None if found is None or found.state == "DELETING" else found

    async def list_documents(
        self, tenant: str, knowledge_base_id: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[DocumentRecord, KeyCursor]:
        start = id_after(after)
        found = [
            d
            for (t, i), d in self._documents.items()
            if t == tenant
            and d.knowledge_base_id == knowledge_base_id
            and i > start
            and d.state != "DELETING"
        ]
        return document_page(sorted(found, key=lambda d: d.document_id), size)

    async def delete_document(self, tenant: str, document_id: str) -> bool:
        return self._documents.pop((tenant, document_id), None) is not None

    async def set_document_state(self, tenant: str, document_id: str, state: DocumentState) -> bool:
        found = self._documents.get((tenant, document_id))
        if found is None:
            return False
        self._documents[(tenant, document_id)] = replace(found, state=state)
        return True

    async def ready_documents(self, tenant: str, document_ids: Collection[str]) -> set[str]:
        return {
            i
            for i in document_ids
            if (d := self._documents.get((tenant, i))) is not None and d.state == "READY"
        }

    async def deleting_documents(self, *, limit: int) -> list[DocumentRecord]:
        found = [d for d in self._documents.values() if d.state == "DELETING"]
        return sorted(found, key=lambda d: d.document_id)[:limit]


def base_page(found: list[KnowledgeBaseRecord], size: int) -> Page[KnowledgeBaseRecord, KeyCursor]:
    """The page of `found` (read as `size` + 1, in id order)."""
    return Page.cut(found, size, lambda b: id_cursor(b.knowledge_base_id))


def document_page(found: list[DocumentRecord], size: int) -> Page[DocumentRecord, KeyCursor]:
    """The page of `found` (read as `size` + 1, in id order)."""
    return Page.cut(found, size, lambda d: id_cursor(d.document_id))


def _base(row: Any) -> KnowledgeBaseRecord:
    return KnowledgeBaseRecord(
        row.tenant, row.knowledge_base_id, row.display_name, aware(row.created_at)
    )


def document_row(row: Any) -> DocumentRecord:
    return DocumentRecord(
        row.tenant,
        row.document_id,
        row.knowledge_base_id,
        row.name,
        row.media_type,
        row.size_bytes,
        row.chunks,
        aware(row.created_at),
        row.state,
        row.external_id,
        row.job_id,
    )


class SqlKnowledgeCatalog:
    """The catalog in the server's database (SQLite or PostgreSQL; migration 0015)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def create_base(self, base: KnowledgeBaseRecord) -> bool:
        row = {
            "tenant": base.tenant,
            "knowledge_base_id": base.knowledge_base_id,
            "display_name": base.display_name,
            "created_at": base.created_at,
        }
        try:
            async with self.engine.begin() as connection:
                await connection.execute(bases.insert().values(**row))
        except IntegrityError:
            return False
        return True

    async def get_base(self, tenant: str, knowledge_base_id: str) -> KnowledgeBaseRecord | None:
        c = bases.c
        query = select(bases).where(c.tenant == tenant, c.knowledge_base_id == knowledge_base_id)
        async with self.engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else _base(row)

    async def list_bases(
        self, tenant: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[KnowledgeBaseRecord, KeyCursor]:
        c = bases.c
        query = (
            select(bases)
            .where(c.tenant == tenant, c.knowledge_base_id > id_after(after))
            .order_by(c.knowledge_base_id)
            .limit(size + 1)
        )
        async with self.engine.connect() as connection:
            return base_page([_base(r) for r in await connection.execute(query)], size)

    async def delete_base(self, tenant: str, knowledge_base_id: str) -> bool:
        async with self.engine.begin() as connection:
            await connection.execute(
                delete(jobs).where(
                    jobs.c.tenant == tenant, jobs.c.knowledge_base_id == knowledge_base_id
                )
            )
            gone = await connection.execute(
                delete(bases).where(
                    bases.c.tenant == tenant, bases.c.knowledge_base_id == knowledge_base_id
                )
            )
            await connection.execute(
                delete(documents).where(
                    and_(
                        documents.c.tenant == tenant,
                        documents.c.knowledge_base_id == knowledge_base_id,
                    )
                )
            )
        return bool(gone.rowcount)

    async def add_document(self, document: DocumentRecord) -> None:
        async with self.engine.begin() as connection:
            await connection.execute(
                documents.insert().values(
                    tenant=document.tenant,
                    document_id=document.document_id,
                    knowledge_base_id=document.knowledge_base_id,
                    name=document.name,
                    media_type=document.media_type,
                    size_bytes=document.size_bytes,
                    chunks=document.chunks,
                    created_at=document.created_at,
                    state=document.state,
                    external_id=document.external_id,
                    job_id=document.job_id,
                )
            )

    async def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None:
        c = documents.c
        query = select(documents).where(
            c.tenant == tenant, c.document_id == document_id, c.state != "DELETING"
        )
        async with self.engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else document_row(row)

    async def list_documents(
        self, tenant: str, knowledge_base_id: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[DocumentRecord, KeyCursor]:
        c = documents.c
        query = (
            select(documents)
            .where(
                c.tenant == tenant,
                c.knowledge_base_id == knowledge_base_id,
                c.document_id > id_after(after),
                c.state != "DELETING",
            )
            .order_by(c.document_id)
            .limit(size + 1)
        )
        async with self.engine.connect() as connection:
            found = [document_row(r) for r in await connection.execute(query)]
        return document_page(found, size)

    async def delete_document(self, tenant: str, document_id: str) -> bool:
        c = documents.c
        async with self.engine.begin() as connection:
            gone = await connection.execute(
                delete(documents).where(c.tenant == tenant, c.document_id == document_id)
            )
        return bool(gone.rowcount)

    async def set_document_state(self, tenant: str, document_id: str, state: DocumentState) -> bool:
        c = documents.c
        statement = (
            update(documents)
            .where(c.tenant == tenant, c.document_id == document_id)
            .values(state=state)
        )
        async with self.engine.begin() as connection:
            return bool((await connection.execute(statement)).rowcount)

    async def ready_documents(self, tenant: str, document_ids: Collection[str]) -> set[str]:
        if not document_ids:
            return set()
        c = documents.c
        query = select(c.document_id).where(
            c.tenant == tenant, c.document_id.in_(list(document_ids)), c.state == "READY"
        )
        async with self.engine.connect() as connection:
            return set((await connection.execute(query)).scalars())

    async def deleting_documents(self, *, limit: int) -> list[DocumentRecord]:
        c = documents.c
        query = select(documents).where(c.state == "DELETING").order_by(c.document_id).limit(limit)
        async with self.engine.connect() as connection:
            return [document_row(r) for r in await connection.execute(query)]
