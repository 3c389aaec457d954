"""The long-term memory and knowledge base methods of `AgentClient` (a mixin over
`agentd.v1.MemoryService`: the client supplies the channel and the error mapping)."""

from __future__ import annotations

from typing import Any

from agentd.v1 import memory_pb2 as mpb
from agentd.v1 import memory_pb2_grpc as mpb_grpc


def search_request(
    knowledge_base_id: str,
    query: str,
    top_k: int = 0,
    score_threshold: float | None = None,
    rerank: bool | None = None,
) -> mpb.SearchKnowledgeRequest:
    """A SearchKnowledge request; the optional fields set only when given."""
    request = mpb.SearchKnowledgeRequest(
        knowledge_base_id=knowledge_base_id, query=query, top_k=top_k
    )
    if score_threshold is not None:
        request.score_threshold = score_threshold
    if rerank is not None:
        request.rerank = rerank
    return request


class KnowledgeMethods:
    _memory: mpb_grpc.MemoryServiceStub

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    async def list_memories(
        self,
        *,
        namespace: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> mpb.ListMemoriesResponse:
        """One page of your (or the end user's you call for) memories, oldest first."""
        request = mpb.ListMemoriesRequest(
            namespace=namespace, page_size=page_size, page_token=page_token
        )
        found: mpb.ListMemoriesResponse = await self._unary(
            self._memory.ListMemories, request, timeout
        )
        return found

    async def search_memories(
        self, query: str, *, namespace: str = "", top_k: int = 0, timeout: float | None = None
    ) -> list[mpb.MemoryHit]:
        """Your memories nearest in meaning to `query`, best first."""
        request = mpb.SearchMemoriesRequest(query=query, namespace=namespace, top_k=top_k)
        found: mpb.SearchMemoriesResponse = await self._unary(
            self._memory.SearchMemories, request, timeout
        )
        return list(found.hits)

    async def delete_memory(self, memory_id: str, *, timeout: float | None = None) -> None:
        request = mpb.DeleteMemoryRequest(memory_id=memory_id)
        await self._unary(self._memory.DeleteMemory, request, timeout)

    async def forget_user(self, *, timeout: float | None = None) -> int:
        """Forget every memory of the caller (the end user); how many were deleted."""
        gone: mpb.ForgetUserResponse = await self._unary(
            self._memory.ForgetUser, mpb.ForgetUserRequest(), timeout
        )
        return gone.memories_deleted

    async def create_knowledge_base(
        self, knowledge_base_id: str, display_name: str = "", *, timeout: float | None = None
    ) -> mpb.KnowledgeBase:
        request = mpb.CreateKnowledgeBaseRequest(
            knowledge_base_id=knowledge_base_id, display_name=display_name
        )
        made: mpb.KnowledgeBase = await self._unary(
            self._memory.CreateKnowledgeBase, request, timeout
        )
        return made

    async def list_knowledge_bases(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> mpb.ListKnowledgeBasesResponse:
        request = mpb.ListKnowledgeBasesRequest(page_size=page_size, page_token=page_token)
        found: mpb.ListKnowledgeBasesResponse = await self._unary(
            self._memory.ListKnowledgeBases, request, timeout
        )
        return found

    async def delete_knowledge_base(
        self, knowledge_base_id: str, *, timeout: float | None = None
    ) -> int:
        """Delete a knowledge base with its documents; how many chunks went."""
        request = mpb.DeleteKnowledgeBaseRequest(knowledge_base_id=knowledge_base_id)
        gone: mpb.DeleteKnowledgeBaseResponse = await self._unary(
            self._memory.DeleteKnowledgeBase, request, timeout
        )
        return gone.chunks_deleted

    async def add_document(
        self,
        knowledge_base_id: str,
        content: bytes,
        media_type: str,
        *,
        name: str = "",
        external_id: str = "",
        background: bool = False,
        timeout: float | None = None,
    ) -> mpb.KnowledgeDocument:
        """Add a document (text/plain, text/markdown, text/html or application/pdf); it is
        chunked and embedded before this returns (READY), or, with `background`, after
        (INGESTING: follow `ingestion_job_id` with `get_ingestion_job`). A document of the
        same `external_id` in the knowledge base is replaced once this one is READY."""
        request = mpb.AddDocumentRequest(
            knowledge_base_id=knowledge_base_id,
            name=name,
            media_type=media_type,
            content=content,
            external_id=external_id,
            background=background,
        )
        added: mpb.KnowledgeDocument = await self._unary(self._memory.AddDocument, request, timeout)
        return added

    async def list_documents(
        self,
        knowledge_base_id: str,
        *,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> mpb.ListDocumentsResponse:
        request = mpb.ListDocumentsRequest(
            knowledge_base_id=knowledge_base_id, page_size=page_size, page_token=page_token
        )
        found: mpb.ListDocumentsResponse = await self._unary(
            self._memory.ListDocuments, request, timeout
        )
        return found

    async def delete_document(self, document_id: str, *, timeout: float | None = None) -> int:
        request = mpb.DeleteDocumentRequest(document_id=document_id)
        gone: mpb.DeleteDocumentResponse = await self._unary(
            self._memory.DeleteDocument, request, timeout
        )
        return gone.chunks_deleted

    async def search_knowledge(
        self,
        knowledge_base_id: str,
        query: str,
        *,
        top_k: int = 0,
        score_threshold: float | None = None,
        rerank: bool | None = None,
        timeout: float | None = None,
    ) -> list[mpb.KnowledgeHit]:
        """The passages a `search_knowledge` call would retrieve (hit testing); `rerank`
        True or False overrides the server's choice (a reranked hit has `rerank_score`)."""
        request = search_request(knowledge_base_id, query, top_k, score_threshold, rerank)
        found: mpb.SearchKnowledgeResponse = await self._unary(
            self._memory.SearchKnowledge, request, timeout
        )
        return list(found.hits)

    async def get_ingestion_job(
        self, job_id: str, *, timeout: float | None = None
    ) -> mpb.IngestionJob:
        """An ingestion job's state, progress (chunks_done of chunks_total) and error."""
        request = mpb.GetIngestionJobRequest(job_id=job_id)
        found: mpb.IngestionJob = await self._unary(self._memory.GetIngestionJob, request, timeout)
        return found

    async def list_ingestion_jobs(
        self,
        knowledge_base_id: str,
        *,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> mpb.ListIngestionJobsResponse:
        """One page of a knowledge base's ingestion jobs, oldest first."""
        request = mpb.ListIngestionJobsRequest(
            knowledge_base_id=knowledge_base_id, page_size=page_size, page_token=page_token
        )
        found: mpb.ListIngestionJobsResponse = await self._unary(
            self._memory.ListIngestionJobs, request, timeout
        )
        return found
