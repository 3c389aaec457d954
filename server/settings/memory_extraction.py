"""Shared memory namespaces, deduplication and extraction at the end of turns.

Memories shared between the users of a tenant, kept once, and proposed by the model at
the end of a turn (docs/memory-and-knowledge.md)."""

from __future__ import annotations

from pydantic import Field

from server.settings.base import CommaList, Section


class MemoryExtractionSettings(Section):
    """Shared memory namespaces, deduplication and extraction at the end of a turn."""

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
