"""Knowledge bases as a tenant manages them: create, list and delete bases; add, list
and delete documents; search one base. Bases and documents belong to the tenant (not to
a user): any principal of the tenant may list and search them; creating, deleting and
adding need one of the admin roles (AGENTD_KNOWLEDGE_ADMIN_ROLES). Another tenant's
bases and documents are NOT_FOUND, whatever the request names."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from agent.knowledge.documents import KnowledgeBases
from agent.knowledge.records import (
    NAMESPACE_PATTERN,
    DocumentRecord,
    KnowledgeBaseRecord,
    Scope,
)
from agent.knowledge.rerank import KnowledgeSearch, Retrieval
from core.errors import (
    FieldViolation,
    InvalidArgumentError,
    KnowledgeBaseExistsError,
    MemoryNotFoundError,
    RoleRequiredError,
)
from core.identity import Principal
from stores.knowledge.catalog import KnowledgeCatalog

KNOWLEDGE_ADMIN_ROLES = ("admin",)
MAX_NAME_CHARS = 256


class KnowledgeAdmin:
    def __init__(
        self,
        catalog: KnowledgeCatalog,
        knowledge: KnowledgeBases,
        admin_roles: Sequence[str] = KNOWLEDGE_ADMIN_ROLES,
        searcher: KnowledgeSearch | None = None,
    ) -> None:
        self.catalog, self.knowledge = catalog, knowledge
        self.searcher = searcher or KnowledgeSearch(knowledge)
        self._roles = tuple(admin_roles)

    def _require_admin(self, caller: Principal, what: str) -> None:
        if not set(caller.roles) & set(self._roles):
            raise RoleRequiredError(what, self._roles)

    async def base(self, caller: Principal, knowledge_base_id: str) -> KnowledgeBaseRecord:
        found = await self.catalog.get_base(caller.tenant, knowledge_base_id)
        if found is None:
            raise MemoryNotFoundError("knowledge base", knowledge_base_id)
        return found

    async def create(
        self, caller: Principal, knowledge_base_id: str, display_name: str
    ) -> KnowledgeBaseRecord:
        self._require_admin(caller, "managing knowledge bases")
        problems = []
        if not NAMESPACE_PATTERN.match(knowledge_base_id):
            problems.append(
                FieldViolation(
                    "knowledge_base_id", "must be 1-64 of a-z0-9_.:- starting with a letter"
                )
            )
        if len(display_name) > MAX_NAME_CHARS:
            problems.append(FieldViolation("display_name", f"is longer than {MAX_NAME_CHARS}"))
        if problems:
            raise InvalidArgumentError(problems)
        record = KnowledgeBaseRecord(
            caller.tenant, knowledge_base_id, display_name, datetime.now(UTC)
        )
        if not await self.catalog.create_base(record):
            raise KnowledgeBaseExistsError(knowledge_base_id)
        return record

    async def list_bases(
        self, caller: Principal, *, limit: int, after: str = ""
    ) -> list[KnowledgeBaseRecord]:
        return await self.catalog.list_bases(caller.tenant, limit=limit, after=after)

    async def delete(self, caller: Principal, knowledge_base_id: str) -> int:
        """Delete a base with every chunk of its documents; how many chunks went."""
        self._require_admin(caller, "managing knowledge bases")
        await self.base(caller, knowledge_base_id)
        gone = await self.knowledge.store.delete(
            Scope(caller.tenant, "chunk", namespaces=(knowledge_base_id,))
        )
        await self.catalog.delete_base(caller.tenant, knowledge_base_id)
        return gone

    async def add_document(
        self,
        caller: Principal,
        knowledge_base_id: str,
        content: bytes,
        media_type: str,
        name: str,
    ) -> DocumentRecord:
        """Parse, chunk, embed and store a document (synchronously); its record."""
        self._require_admin(caller, "adding documents to knowledge bases")
        if len(name) > MAX_NAME_CHARS:
            raise InvalidArgumentError([FieldViolation("name", f"is longer than {MAX_NAME_CHARS}")])
        await self.base(caller, knowledge_base_id)
        size = len(content)
        document_id, count = await self.knowledge.add_document(
            caller.tenant, knowledge_base_id, content, media_type
        )
        record = DocumentRecord(
            caller.tenant,
            document_id,
            knowledge_base_id,
            name,
            media_type,
            size,
            count,
            datetime.now(UTC),
        )
        try:
            await self.catalog.add_document(record)
            if await self.catalog.get_base(caller.tenant, knowledge_base_id) is None:
                # deleted while the document was ingested: leave none of it behind
                await self.catalog.delete_document(caller.tenant, document_id)
                raise MemoryNotFoundError("knowledge base", knowledge_base_id)
        except BaseException:
            await self.knowledge.delete_document(caller.tenant, document_id)
            raise
        return record

    async def list_documents(
        self, caller: Principal, knowledge_base_id: str, *, limit: int, after: str = ""
    ) -> list[DocumentRecord]:
        await self.base(caller, knowledge_base_id)
        return await self.catalog.list_documents(
            caller.tenant, knowledge_base_id, limit=limit, after=after
        )

    async def delete_document(self, caller: Principal, document_id: str) -> int:
        self._require_admin(caller, "deleting documents from knowledge bases")
        found = await self.catalog.get_document(caller.tenant, document_id)
        if found is None:
            raise MemoryNotFoundError("document", document_id)
        gone = await self.knowledge.delete_document(caller.tenant, document_id)
        await self.catalog.delete_document(caller.tenant, document_id)
        return gone

    async def search(
        self,
        caller: Principal,
        knowledge_base_id: str,
        query: str,
        *,
        top_k: int | None = None,
        threshold: float | None = None,
        rerank: bool | None = None,
        candidates: int = 0,
    ) -> Retrieval:
        await self.base(caller, knowledge_base_id)
        return await self.searcher.search(
            caller.tenant,
            [knowledge_base_id],
            query,
            top_k=top_k,
            threshold=threshold,
            rerank=rerank,
            candidates=candidates,
        )
