"""Errors of long-term memory, knowledge bases and the embeddings they are searched by."""

from __future__ import annotations

from core.errors.base import AgentdError


class EmbeddingsUnavailableError(AgentdError):
    """The embeddings endpoint failed (after retries) or answered something unusable: no
    vector, the wrong number of them, or vectors of the wrong dimensions. Nothing of the
    write that needed them was stored."""

    reason = "EMBEDDINGS_UNAVAILABLE"

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(f"embeddings are unavailable: {detail}")


class EmbeddingModelChangedError(AgentdError):
    """The store's vectors were made by another embedding model (name or dimensions) than
    the one configured now; searching or adding would mix two spaces. Re-index first
    (`agentd memory reindex`)."""

    reason = "EMBEDDING_MODEL_CHANGED"

    def __init__(self, stored: str, configured: str) -> None:
        self.stored = stored
        self.configured = configured
        super().__init__(
            f"the memory store holds vectors of {stored}, but the embedding model configured "
            f"is {configured}; run `agentd memory reindex` to re-embed them",
            metadata={"stored": stored, "configured": configured},
        )


class MemoryUnavailableError(AgentdError):
    """Long-term memory and knowledge bases are off on this server: the database lacks
    what they need (PostgreSQL without the `vector` extension), or no embeddings endpoint
    is configured. Everything else runs."""

    reason = "MEMORY_UNAVAILABLE"

    def __init__(self, why: str) -> None:
        self.why = why
        super().__init__(f"memory and knowledge bases are unavailable on this server: {why}")


class MemoryNotFoundError(AgentdError):
    """No memory (or knowledge base, or document) of that id is visible to the caller."""

    reason = "MEMORY_NOT_FOUND"

    def __init__(self, kind: str, item_id: str) -> None:
        self.kind = kind
        self.item_id = item_id
        super().__init__(f"no {kind} with id {item_id!r}", metadata={"id": item_id})


class KnowledgeBaseExistsError(AgentdError):
    """The tenant already has a knowledge base of that id."""

    reason = "KNOWLEDGE_BASE_EXISTS"

    def __init__(self, knowledge_base_id: str) -> None:
        super().__init__(
            f"knowledge base {knowledge_base_id!r} exists already",
            metadata={"knowledge_base": knowledge_base_id},
        )


class DocumentGoneError(MemoryNotFoundError):
    """A document's ingestion stopped because the document (or its knowledge base) was
    deleted while it was ingested; nothing of it remains."""

    def __init__(self, document_id: str) -> None:
        super().__init__("document", document_id)
        self.message = (
            f"document {document_id!r} or its knowledge base was deleted while it was ingested"
        )
