"""Long-term memory and knowledge bases: the embedding model, recall and retrieval.

`MemoryExtractionSettings`: memories shared between users, deduplicated and extracted
from turns."""

from __future__ import annotations

from pydantic import Field, model_validator

from server.settings.base import CommaList, MiB, Section


class MemorySettings(Section):
    embedding_model: str | None = Field(
        None,
        description="embedding model name on an OpenAI-compatible /v1/embeddings endpoint; "
        "long-term memory and knowledge bases are off without it (their RPCs answer "
        "FAILED_PRECONDITION MEMORY_UNAVAILABLE)",
    )
    embedding_base_url: str | None = Field(
        None, description="the embeddings endpoint (default: AGENTD_LLM_BASE_URL)"
    )
    embedding_api_key: str | None = Field(
        None, description="its API key (default: AGENTD_LLM_API_KEY)"
    )
    embedding_dimensions: int = Field(
        1536, ge=1, le=16_000, description="dimensions of the model's vectors (checked)"
    )
    embedding_send_dimensions: bool = Field(
        False,
        description="send `dimensions` with each request (OpenAI's text-embedding-3 models "
        "shorten their vectors to it; other servers may refuse the field)",
    )
    embedding_batch_size: int = Field(64, ge=1, le=2048, description="texts per request")
    embedding_timeout_seconds: float = Field(30.0, gt=0, description="per-request timeout")
    embedding_max_attempts: int = Field(
        4, ge=1, le=10, description="attempts on 429/5xx/connection errors"
    )
    memory_recall_top_k: int = Field(
        0,
        ge=0,
        le=50,
        description="memories of the user put into a task's prompt unless its agent's "
        "`memory: {recall_top_k: N}` says otherwise (0: off)",
    )
    memory_max_text_chars: int = Field(
        4000, ge=10, le=100_000, description="the longest memory one `remember` may store"
    )
    knowledge_top_k: int = Field(5, ge=1, le=50, description="chunks a knowledge search returns")
    knowledge_score_threshold: float = Field(
        0.7,
        ge=-1.0,
        le=1.0,
        description="least cosine similarity of a chunk to be retrieved (applied before the "
        "vector and keyword rankings are fused)",
    )
    knowledge_chunk_tokens: int = Field(300, ge=20, le=8000, description="tokens per chunk")
    knowledge_chunk_overlap: int = Field(
        40, ge=0, le=2000, description="tokens a chunk shares with the one before (< a chunk)"
    )
    knowledge_max_document_bytes: int = Field(
        25 * MiB, ge=1024, le=512 * MiB, description="the largest document that may be added"
    )
    knowledge_ingestion_parallel: int = Field(
        2,
        ge=1,
        le=64,
        description="documents one process ingests at a time (AddDocument calls and "
        "background jobs); further ones wait QUEUED",
    )
    knowledge_ingestion_max_waiting: int = Field(
        100,
        ge=1,
        le=100_000,
        description="background ingestion jobs a tenant may have queued or running (their "
        "content is stored until they end); AddDocument with `background` answers "
        "RESOURCE_EXHAUSTED beyond",
    )
    knowledge_ingestion_lease_seconds: float = Field(
        30.0,
        ge=1.0,
        le=3600.0,
        description="how long an ingestion job stays with a process that stopped renewing "
        "its lease (it died) before another process (or this one restarted) takes it over",
    )
    knowledge_ingestion_attempts: int = Field(
        3,
        ge=1,
        le=10,
        description="how many times a background ingestion job is run when the processes "
        "running it die; then it is FAILED (reason SHUTTING_DOWN)",
    )

    knowledge_admin_roles: CommaList = Field(
        default_factory=lambda: ["admin"],
        description="comma-separated roles that may create and delete their tenant's "
        "knowledge bases and add and delete their documents by RPC (any principal of the "
        "tenant may list and search them)",
    )

    @model_validator(mode="after")
    def _overlap_below_chunk(self) -> MemorySettings:
        if self.knowledge_chunk_overlap >= self.knowledge_chunk_tokens:
            raise ValueError(
                "AGENTD_KNOWLEDGE_CHUNK_OVERLAP must be smaller than AGENTD_KNOWLEDGE_CHUNK_TOKENS"
            )
        return self


class MemoryExtractionSettings(Section):
    """Shared memory namespaces, deduplication and extraction at the end of turns.

    Memories shared between the users of a tenant, kept once, and proposed by the model
    at the end of a turn (docs/memory-and-knowledge.md)."""

    memory_shared_read_roles: CommaList = Field(
        default_factory=lambda: ["admin"],
        description="comma-separated roles that may read the tenant's shared memory "
        "namespaces (`shared:<name>`) with recall, ListMemories and SearchMemories (the write "
        "roles may too)",
    )
    memory_shared_write_roles: CommaList = Field(
        default_factory=lambda: ["admin"],
        description="comma-separated roles that may add, change and delete memories of "
        "shared namespaces (`remember`, DeleteMemory)",
    )
    memory_dedupe_similarity: float = Field(
        0.95,
        ge=0.5,
        le=1.0,
        description="a new memory at least this similar (cosine) to a stored one of the "
        "same user and namespace (or shared namespace) is not stored: the stored one is kept",
    )
    memory_extraction_model: str | None = Field(
        None,
        description="model that proposes memory changes at the end of a turn for agents "
        "with `memory: {extract: true}` (default: the task's executor model)",
    )
    memory_extraction_max_operations: int = Field(
        5, ge=1, le=50, description="most memory operations one extraction may apply"
    )
    memory_extraction_max_text_chars: int = Field(
        500, ge=20, le=4000, description="longest text of a memory an extraction adds"
    )
    memory_extraction_nearest: int = Field(
        8, ge=0, le=50, description="nearest existing memories an extraction is shown"
    )
    memory_extraction_timeout_seconds: float = Field(
        60.0, gt=0, le=600, description="time one extraction may take (then it is dropped)"
    )
