"""The knowledge base catalog: which knowledge bases a tenant has and which documents
each holds (their chunks and vectors are in the knowledge store, `Item.namespace` being
the knowledge base's id and `Item.document_id` the document's).

Contract (tests/contract/test_knowledge_catalog.py, on memory, SQLite and PostgreSQL):
every call is one tenant's; another tenant's bases and documents are never found, listed
or deleted. `create_base` returns False when the tenant has the id already. Lists are in
id order (ids grow with time), `after` an id. `delete_base` deletes its documents'
records too."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, and_, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from agent.knowledge.records import DocumentRecord, KnowledgeBaseRecord
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
)


class KnowledgeCatalog(Protocol):
    async def create_base(self, base: KnowledgeBaseRecord) -> bool: ...

    async def get_base(self, tenant: str, knowledge_base_id: str) -> KnowledgeBaseRecord | None: ...

    async def list_bases(
        self, tenant: str, *, limit: int, after: str = ""
    ) -> list[KnowledgeBaseRecord]: ...

    async def delete_base(self, tenant: str, knowledge_base_id: str) -> bool: ...

    async def add_document(self, document: DocumentRecord) -> None: ...

    async def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None: ...

    async def list_documents(
        self, tenant: str, knowledge_base_id: str, *, limit: int, after: str = ""
    ) -> list[DocumentRecord]: ...

    async def delete_document(self, tenant: str, document_id: str) -> bool: ...


class MemoryKnowledgeCatalog:
    """In-process catalog (tests, and servers without a database)."""

    def __init__(self) -> None:
        self._bases: dict[tuple[str, str], KnowledgeBaseRecord] = {}
        self._documents: dict[tuple[str, str], DocumentRecord] = {}

    async def create_base(self, base: KnowledgeBaseRecord) -> bool:
        key = (base.tenant, base.knowledge_base_id)
        if key in self._bases:
            return False
        self._bases[key] = replace(base)
        return True

    async def get_base(self, tenant: str, knowledge_base_id: str) -> KnowledgeBaseRecord | None:
        return self._bases.get((tenant, knowledge_base_id))

    async def list_bases(
        self, tenant: str, *, limit: int, after: str = ""
    ) -> list[KnowledgeBaseRecord]:
        found = [b for (t, i), b in self._bases.items() if t == tenant and i > after]
        return sorted(found, key=lambda b: b.knowledge_base_id)[:limit]

    async def delete_base(self, tenant: str, knowledge_base_id: str) -> bool:
        if self._bases.pop((tenant, knowledge_base_id), None) is None:
            return False
        for key, doc in list(self._documents.items()):
            if key[0] == tenant and doc.knowledge_base_id == knowledge_base_id:
                del self._documents[key]
        return True

    async def add_document(self, document: DocumentRecord) -> None:
        self._documents[(document.tenant, document.document_id)] = document

    async def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None:
        return self._documents.get((tenant, document_id))

    async def list_documents(
        self, tenant: str, knowledge_base_id: str, *, limit: int, after: str = ""
    ) -> list[DocumentRecord]:
        found = [
            d
            for (t, i), d in self._documents.items()
            if t == tenant and d.knowledge_base_id == knowledge_base_id and i > after
        ]
        return sorted(found, key=lambda d: d.document_id)[:limit]

    async def delete_document(self, tenant: str, document_id: str) -> bool:
        return self._documents.pop((tenant, document_id), None) is not None


def _base(row: Any) -> KnowledgeBaseRecord:
    return KnowledgeBaseRecord(
        row.tenant, row.knowledge_base_id, row.display_name, aware(row.created_at)
    )


def _document(row: Any) -> DocumentRecord:
    return DocumentRecord(
        row.tenant,
        row.document_id,
        row.knowledge_base_id,
        row.name,
        row.media_type,
        row.size_bytes,
        row.chunks,
        aware(row.created_at),
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
        self, tenant: str, *, limit: int, after: str = ""
    ) -> list[KnowledgeBaseRecord]:
        c = bases.c
        query = (
            select(bases)
            .where(c.tenant == tenant, c.knowledge_base_id > after)
            .order_by(c.knowledge_base_id)
            .limit(limit)
        )
        async with self.engine.connect() as connection:
            return [_base(r) for r in await connection.execute(query)]

    async def delete_base(self, tenant: str, knowledge_base_id: str) -> bool:
        async with self.engine.begin() as connection:
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
                )
            )

    async def get_document(self, tenant: str, document_id: str) -> DocumentRecord | None:
        c = documents.c
        query = select(documents).where(c.tenant == tenant, c.document_id == document_id)
        async with self.engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else _document(row)

    async def list_documents(
        self, tenant: str, knowledge_base_id: str, *, limit: int, after: str = ""
    ) -> list[DocumentRecord]:
        c = documents.c
        query = (
            select(documents)
            .where(
                c.tenant == tenant, c.knowledge_base_id == knowledge_base_id, c.document_id > after
            )
            .order_by(c.document_id)
            .limit(limit)
        )
        async with self.engine.connect() as connection:
            return [_document(r) for r in await connection.execute(query)]

    async def delete_document(self, tenant: str, document_id: str) -> bool:
        c = documents.c
        async with self.engine.begin() as connection:
            gone = await connection.execute(
                delete(documents).where(c.tenant == tenant, c.document_id == document_id)
            )
        return bool(gone.rowcount)
