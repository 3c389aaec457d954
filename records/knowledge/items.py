"""What the knowledge stores keep: items (a memory, or a chunk of a document) with their
scope, and what a search finds. Plain types below both the engine and the stores."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
"""One row per text, L2-normalised, float32."""


@dataclass(frozen=True, slots=True)
class EmbeddingSpace:
    """What a vector was made by: the model's name and its dimensions. A store refuses to
    mix two spaces (`EmbeddingModelChangedError`)."""

    model: str
    dimensions: int

    def __str__(self) -> str:
        return f"{self.model} ({self.dimensions} dimensions)"


def normalised(rows: Vectors) -> Vectors:
    """Rows scaled to length 1 (a zero row stays zero): cosine is then a dot product."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    scaled: Vectors = (rows / norms).astype(np.float32, copy=False)
    return scaled


ItemKind = Literal["memory", "chunk"]

DocumentState = Literal["INGESTING", "READY", "DELETING"]
"""INGESTING while its job runs, READY once every chunk is stored (only READY documents'
chunks are searched), DELETING once replaced or deleted, until its chunks are gone."""

NAMESPACE_PATTERN = re.compile(r"^[a-z][a-z0-9_.:-]{0,63}$")
"""A memory namespace: `default`, `agent:support`, `prefs`..."""


def content_hash(text: str) -> str:
    """The digest duplicates are found by: the text NFC-normalised, case and runs of
    blanks folded."""
    folded = " ".join(unicodedata.normalize("NFC", text).casefold().split())
    return hashlib.sha256(folded.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Item:
    """One stored text with its vector kept beside it by the store."""

    item_id: str
    tenant: str
    kind: ItemKind
    user: str
    """The end user a memory belongs to (the principal id); empty for a document's chunk."""
    namespace: str
    """A memory's namespace; for a chunk, the id of its knowledge base."""
    text: str
    content_hash: str
    created_at: datetime
    document_id: str = ""
    """A chunk's document."""
    chunk_index: int = 0
    """A chunk's position in its document, from 0."""


@dataclass(frozen=True, slots=True)
class Scope:
    """Which items a search, a listing or a deletion sees: always one tenant's, and of
    one kind; the other fields narrow it when set."""

    tenant: str
    kind: ItemKind
    user: str | None = None
    namespaces: tuple[str, ...] = ()
    document_id: str | None = None
    item_ids: tuple[str, ...] = ()

    def admits(self, item: Item) -> bool:
        return (
            item.tenant == self.tenant
            and item.kind == self.kind
            and (self.user is None or item.user == self.user)
            and (not self.namespaces or item.namespace in self.namespaces)
            and (self.document_id is None or item.document_id == self.document_id)
            and (not self.item_ids or item.item_id in self.item_ids)
        )


@dataclass(frozen=True, slots=True)
class Hit:
    """An item a search found: its cosine similarity to the query and, for a hybrid
    search, its fused (reciprocal rank) score."""

    item: Item
    similarity: float
    fused: float = 0.0
    matched: tuple[str, ...] = field(default=())
    """How it was found: `vector`, `keyword` or both."""
    rerank_score: float | None = None
    """The reranking model's relevance score, when the search was reranked
    (`agent.knowledge.rerank`)."""
    fused_rank: int = 0
    """Its place (from 1) in the fused ranking before reranking; 0: not reranked."""


@dataclass(frozen=True, slots=True)
class KnowledgeBaseRecord:
    """A knowledge base of a tenant (its chunks are items whose namespace is its id)."""

    tenant: str
    knowledge_base_id: str
    display_name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """A document added to a knowledge base, and how many chunks it was cut into."""

    tenant: str
    document_id: str
    knowledge_base_id: str
    name: str
    media_type: str
    size_bytes: int
    chunks: int
    created_at: datetime
    state: DocumentState = "READY"
    external_id: str = ""
    """The caller's own id of the document: adding another of it replaces this one."""
    job_id: str = ""
    """The ingestion job that added it."""
