"""The knowledge base RPCs of MemoryService (a mixin of its servicer). Thin: context,
validation of the request's shape, conversion, one call into `agent.knowledge.bases`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.protobuf import timestamp_pb2

from agentd.v1 import memory_pb2 as pb
from core.errors import FieldViolation, InvalidArgumentError
from core.identity import CallContext
from server.calls import unary
from server.convert import pages
from server.rpcs.common import required_id
from server.services.memory import MemoryFeature

if TYPE_CHECKING:  # numpy: only when memory is on
    from records.knowledge.items import DocumentRecord, Hit, KnowledgeBaseRecord
    from records.knowledge.jobs import IngestionJob

MAX_QUERY_CHARS = 2000
MAX_TOP_K = 50
MAX_RERANK_CANDIDATES = 500
MAX_PAGE = 100
SNIPPET_CHARS = 200


def _time(value: object) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(value)  # type: ignore[arg-type]
    return stamp


def base_to_proto(base: KnowledgeBaseRecord) -> pb.KnowledgeBase:
    return pb.KnowledgeBase(
        knowledge_base_id=base.knowledge_base_id,
        display_name=base.display_name,
        create_time=_time(base.created_at),
    )


def document_to_proto(document: DocumentRecord) -> pb.KnowledgeDocument:
    return pb.KnowledgeDocument(
        document_id=document.document_id,
        knowledge_base_id=document.knowledge_base_id,
        name=document.name,
        media_type=document.media_type,
        size_bytes=document.size_bytes,
        chunk_count=document.chunks,
        create_time=_time(document.created_at),
        state=pb.DocumentState.Value(f"DOCUMENT_STATE_{document.state}"),
        external_id=document.external_id,
        ingestion_job_id=document.job_id,
    )


def job_to_proto(job: IngestionJob) -> pb.IngestionJob:
    message = pb.IngestionJob(
        job_id=job.job_id,
        knowledge_base_id=job.knowledge_base_id,
        document_id=job.document_id,
        external_id=job.external_id,
        name=job.name,
        state=pb.IngestionJobState.Value(f"INGESTION_JOB_STATE_{job.state}"),
        chunks_done=job.chunks_done,
        chunks_total=job.chunks_total,
        size_bytes=job.size_bytes,
        create_time=_time(job.created_at),
        error_reason=job.error_reason,
        error=job.error,
        attempts=job.attempts,
        background=job.background,
    )
    if job.started_at is not None:
        message.start_time.CopyFrom(_time(job.started_at))
    if job.finished_at is not None:
        message.end_time.CopyFrom(_time(job.finished_at))
    return message


def hit_to_proto(hit: Hit) -> pb.KnowledgeHit:
    item = hit.item
    citation = pb.Citation(
        knowledge_base_id=item.namespace,
        document_id=item.document_id,
        chunk_index=item.chunk_index,
        score=round(hit.similarity, 4),
        snippet=item.text[:SNIPPET_CHARS],
    )
    found = pb.KnowledgeHit(citation=citation, text=item.text, fused_rank=hit.fused_rank)
    if hit.rerank_score is not None:
        found.rerank_score = round(hit.rerank_score, 4)
    return found


MAX_KNOWLEDGE_ID = 64
"""Knowledge base, document and job ids (and a media type) are at most this long."""


class KnowledgeRpcs:
    """CreateKnowledgeBase ... SearchKnowledge, over the server's MemoryFeature."""

    _feature: MemoryFeature

    @unary
    async def CreateKnowledgeBase(  # noqa: N802 - gRPC method name
        self, request: pb.CreateKnowledgeBaseRequest, call: CallContext
    ) -> pb.KnowledgeBase:
        bases = self._feature.require_bases()
        created = await bases.create(
            call.principal, request.knowledge_base_id, request.display_name
        )
        return base_to_proto(created)

    @unary
    async def ListKnowledgeBases(  # noqa: N802
        self, request: pb.ListKnowledgeBasesRequest, call: CallContext
    ) -> pb.ListKnowledgeBasesResponse:
        bases = self._feature.require_bases()
        size = pages.page_size(request.page_size, maximum=MAX_PAGE)
        after = pages.key_cursor(request.page_token)
        page = await bases.list_bases(call.principal, size=size, after=after)
        return pb.ListKnowledgeBasesResponse(
            knowledge_bases=[base_to_proto(b) for b in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def DeleteKnowledgeBase(  # noqa: N802
        self, request: pb.DeleteKnowledgeBaseRequest, call: CallContext
    ) -> pb.DeleteKnowledgeBaseResponse:
        bases = self._feature.require_bases()
        required_id(request.knowledge_base_id, "knowledge_base_id", MAX_KNOWLEDGE_ID)
        gone = await bases.delete(call.principal, request.knowledge_base_id)
        return pb.DeleteKnowledgeBaseResponse(chunks_deleted=gone)

    @unary
    async def AddDocument(  # noqa: N802
        self, request: pb.AddDocumentRequest, call: CallContext
    ) -> pb.KnowledgeDocument:
        bases = self._feature.require_bases()
        required_id(request.knowledge_base_id, "knowledge_base_id", MAX_KNOWLEDGE_ID)
        required_id(request.media_type, "media_type", MAX_KNOWLEDGE_ID)
        added = await bases.add_document(
            call.principal,
            request.knowledge_base_id,
            request.content,
            request.media_type,
            request.name,
            background=request.background,
            external_id=request.external_id,
        )
        return document_to_proto(added)

    @unary
    async def ListDocuments(  # noqa: N802
        self, request: pb.ListDocumentsRequest, call: CallContext
    ) -> pb.ListDocumentsResponse:
        bases = self._feature.require_bases()
        required_id(request.knowledge_base_id, "knowledge_base_id", MAX_KNOWLEDGE_ID)
        size = pages.page_size(request.page_size, maximum=MAX_PAGE)
        after = pages.key_cursor(request.page_token)
        page = await bases.list_documents(
            call.principal, request.knowledge_base_id, size=size, after=after
        )
        return pb.ListDocumentsResponse(
            documents=[document_to_proto(d) for d in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def DeleteDocument(  # noqa: N802
        self, request: pb.DeleteDocumentRequest, call: CallContext
    ) -> pb.DeleteDocumentResponse:
        bases = self._feature.require_bases()
        required_id(request.document_id, "document_id", MAX_KNOWLEDGE_ID)
        gone = await bases.delete_document(call.principal, request.document_id)
        return pb.DeleteDocumentResponse(chunks_deleted=gone)

    @unary
    async def SearchKnowledge(  # noqa: N802
        self, request: pb.SearchKnowledgeRequest, call: CallContext
    ) -> pb.SearchKnowledgeResponse:
        bases = self._feature.require_bases()
        problems = []
        if not request.knowledge_base_id:
            problems.append(FieldViolation("knowledge_base_id", "is required"))
        if not request.query.strip():
            problems.append(FieldViolation("query", "is required"))
        elif len(request.query) > MAX_QUERY_CHARS:
            problems.append(FieldViolation("query", f"is longer than {MAX_QUERY_CHARS}"))
        if not 0 <= request.top_k <= MAX_TOP_K:
            problems.append(FieldViolation("top_k", f"must be 0 to {MAX_TOP_K}"))
        threshold = None
        if request.HasField("score_threshold"):
            threshold = request.score_threshold
            if not -1.0 <= threshold <= 1.0:
                problems.append(FieldViolation("score_threshold", "must be -1 to 1"))
        if request.rerank_candidates > MAX_RERANK_CANDIDATES:
            problems.append(
                FieldViolation("rerank_candidates", f"must be 0 to {MAX_RERANK_CANDIDATES}")
            )
        if problems:
            raise InvalidArgumentError(problems)
        found = await bases.search(
            call.principal,
            request.knowledge_base_id,
            request.query,
            top_k=request.top_k or None,
            threshold=threshold,
            rerank=request.rerank if request.HasField("rerank") else None,
            candidates=request.rerank_candidates,
        )
        return pb.SearchKnowledgeResponse(hits=[hit_to_proto(h) for h in found.hits])

    @unary
    async def GetIngestionJob(  # noqa: N802
        self, request: pb.GetIngestionJobRequest, call: CallContext
    ) -> pb.IngestionJob:
        bases = self._feature.require_bases()
        required_id(request.job_id, "job_id", MAX_KNOWLEDGE_ID)
        return job_to_proto(await bases.job(call.principal, request.job_id))

    @unary
    async def ListIngestionJobs(  # noqa: N802
        self, request: pb.ListIngestionJobsRequest, call: CallContext
    ) -> pb.ListIngestionJobsResponse:
        bases = self._feature.require_bases()
        required_id(request.knowledge_base_id, "knowledge_base_id", MAX_KNOWLEDGE_ID)
        size = pages.page_size(request.page_size, maximum=MAX_PAGE)
        after = pages.key_cursor(request.page_token)
        page = await bases.list_jobs(
            call.principal, request.knowledge_base_id, size=size, after=after
        )
        return pb.ListIngestionJobsResponse(
            jobs=[job_to_proto(j) for j in page.items], next_page_token=pages.token(page.next)
        )
