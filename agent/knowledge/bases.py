"""Knowledge bases as a tenant manages them: create, list and delete bases; add, list
and delete documents; search one base. Bases and documents belong to the tenant (not to
a user): any principal of the tenant may list and search them; creating, deleting and
adding need one of the admin roles (AGENTD_KNOWLEDGE_ADMIN_ROLES), and so do reading
ingestion jobs. Another tenant's bases, documents and jobs are NOT_FOUND, whatever the
request names. Documents are ingested by jobs (`agent.knowledge.ingestion`): the
document's record is written first (INGESTING: no search sees its chunks), READY once
every chunk is stored."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from agent.knowledge.documents import MEDIA_TYPES, KnowledgeBases
from agent.knowledge.ingestion import IngestionRunner
from agent.knowledge.memories import new_item_id
from agent.knowledge.rerank import KnowledgeSearch, Retrieval
from core.errors import (
    FieldViolation,
    InvalidArgumentError,
    KnowledgeBaseExistsError,
    MemoryNotFoundError,
    RequestTooLargeError,
)
from core.identity import Principal
from core.roles import DEFAULT_ROLES, Action, RoleTable
from records.knowledge.items import NAMESPACE_PATTERN, DocumentRecord, KnowledgeBaseRecord, Scope
from records.knowledge.jobs import IngestionJob, new_job_id
from records.paging import KeyCursor, Page
from stores.knowledge.catalog import KnowledgeCatalog
from stores.knowledge.jobs import jobs_for

MAX_NAME_CHARS = 256


class KnowledgeAdmin:
    def __init__(
        self,
        catalog: KnowledgeCatalog,
        knowledge: KnowledgeBases,
        roles: RoleTable = DEFAULT_ROLES,
        searcher: KnowledgeSearch | None = None,
        runner: IngestionRunner | None = None,
    ) -> None:
        self.catalog, self.knowledge = catalog, knowledge
        self.searcher = searcher or KnowledgeSearch(knowledge)
        self._roles = roles
        self.runner = runner or IngestionRunner(
            jobs_for(catalog), catalog, knowledge, owner=new_item_id("ingest-")
        )

    def _require_admin(self, caller: Principal, action: Action) -> None:
        self._roles.require(caller.roles, action)

    async def base(self, caller: Principal, knowledge_base_id: str) -> KnowledgeBaseRecord:
        found = await self.catalog.get_base(caller.tenant, knowledge_base_id)
        if found is None:
            raise MemoryNotFoundError("knowledge base", knowledge_base_id)
        return found

    async def create(
        self, caller: Principal, knowledge_base_id: str, display_name: str
    ) -> KnowledgeBaseRecord:
        self._require_admin(caller, Action.MANAGE_KNOWLEDGE_BASES)
        problems = []
        if not NAMESPACE_PATTERN.fullmatch(knowledge_base_id):
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
        self, caller: Principal, *, size: int, after: KeyCursor | None = None
    ) -> Page[KnowledgeBaseRecord, KeyCursor]:
        return await self.catalog.list_bases(caller.tenant, size=size, after=after)

    async def delete(self, caller: Principal, knowledge_base_id: str) -> int:
        """Delete a base with every chunk of its documents; how many chunks went."""
        self._require_admin(caller, Action.MANAGE_KNOWLEDGE_BASES)
        await self.base(caller, knowledge_base_id)
        gone = await self.knowledge.store.delete(
            Scope(caller.tenant, "chunk", namespaces=(knowledge_base_id,))
        )
        await self.catalog.delete_base(caller.tenant, knowledge_base_id)
        return gone

    def _check_document(self, content: bytes, media_type: str, name: str, external_id: str) -> None:
        problems = []
        if len(name) > MAX_NAME_CHARS:
            problems.append(FieldViolation("name", f"is longer than {MAX_NAME_CHARS}"))
        if len(external_id) > MAX_NAME_CHARS:
            problems.append(FieldViolation("external_id", f"is longer than {MAX_NAME_CHARS}"))
        for field, value in (("name", name), ("external_id", external_id)):
            if "\x00" in value:  # PostgreSQL's text cannot hold it
                problems.append(FieldViolation(field, "holds a NUL character"))
        if media_type not in MEDIA_TYPES:
            problems.append(
                FieldViolation("media_type", f"must be one of {', '.join(MEDIA_TYPES)}")
            )
        if problems:
            raise InvalidArgumentError(problems)
        if len(content) > self.knowledge.max_document_bytes:
            raise RequestTooLargeError("content", len(content), self.knowledge.max_document_bytes)

    async def add_document(
        self,
        caller: Principal,
        knowledge_base_id: str,
        content: bytes,
        media_type: str,
        name: str,
        *,
        background: bool = False,
        external_id: str = "",
    ) -> DocumentRecord:
        """Add a document by an ingestion job: the document READY (or the job's error),
        or, `background`, INGESTING at once while the job runs."""
        self._require_admin(caller, Action.ADD_KNOWLEDGE_DOCUMENTS)
        self._check_document(content, media_type, name, external_id)
        await self.base(caller, knowledge_base_id)
        now = datetime.now(UTC)
        record = DocumentRecord(
            caller.tenant,
            new_item_id("doc_"),
            knowledge_base_id,
            name,
            media_type,
            len(content),
            0,
            now,
            "INGESTING",
            external_id,
            new_job_id(),
        )
        job = IngestionJob(
            caller.tenant,
            record.job_id,
            knowledge_base_id,
            record.document_id,
            name,
            media_type,
            len(content),
            now,
            external_id,
        )
        await self.catalog.add_document(record)
        try:
            if background:
                await self.runner.submit(job, content)
                return record
        except BaseException:
            await self.catalog.delete_document(caller.tenant, record.document_id)
            raise
        ended = await self.runner.run(job, content)
        return replace(record, state="READY", chunks=ended.chunks_done)

    async def job(self, caller: Principal, job_id: str) -> IngestionJob:
        self._require_admin(caller, Action.READ_INGESTION_JOBS)
        found = await self.runner.jobs.get(caller.tenant, job_id)
        if found is None:
            raise MemoryNotFoundError("ingestion job", job_id)
        return found

    async def list_jobs(
        self,
        caller: Principal,
        knowledge_base_id: str,
        *,
        size: int,
        after: KeyCursor | None = None,
    ) -> Page[IngestionJob, KeyCursor]:
        self._require_admin(caller, Action.READ_INGESTION_JOBS)
        await self.base(caller, knowledge_base_id)
        return await self.runner.jobs.list_jobs(
            caller.tenant, knowledge_base_id, size=size, after=after
        )

    async def list_documents(
        self,
        caller: Principal,
        knowledge_base_id: str,
        *,
        size: int,
        after: KeyCursor | None = None,
    ) -> Page[DocumentRecord, KeyCursor]:
        await self.base(caller, knowledge_base_id)
        return await self.catalog.list_documents(
            caller.tenant, knowledge_base_id, size=size, after=after
        )

    async def delete_document(self, caller: Principal, document_id: str) -> int:
        self._require_admin(caller, Action.DELETE_KNOWLEDGE_DOCUMENTS)
        found = await self.catalog.get_document(caller.tenant, document_id)
        if found is None:
            raise MemoryNotFoundError("document", document_id)
        # DELETING first: searches stop seeing it, and a job ingesting it stops
        await self.catalog.set_document_state(caller.tenant, document_id, "DELETING")
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
