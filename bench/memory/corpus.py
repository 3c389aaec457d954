"""The bench's memories and chunks: their count, their texts and their random unit vectors,
made the same on every run (seeded) for SQLite and pgvector alike."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from agent.knowledge.memories import new_item_id
from records.knowledge.items import EmbeddingSpace, Item, Vectors, content_hash, normalised

DIMENSIONS = 1536
SPACE = EmbeddingSpace("bench-embedding", DIMENSIONS)
MEMORIES = 10_000
CHUNKS = 100_000
LOAD_BATCH = 2_000
TOPICS = ("billing", "shipping", "warranty", "returns", "accounts", "security", "pricing")


def unit_vectors(count: int, seed: int) -> Vectors:
    rng = np.random.default_rng(seed)
    return normalised(rng.standard_normal((count, DIMENSIONS), dtype=np.float32))


def bench_items(kind: str, count: int, start: int) -> list[Item]:
    """`count` memories of one user, or chunks of 50-chunk documents in one knowledge base,
    numbered from `start` (the same texts on every run)."""
    now = datetime.now(UTC)
    made = []
    for n in range(start, start + count):
        body = f"{kind} {n} about {TOPICS[n % len(TOPICS)]} and item {n * 7 % 1000}"
        if kind == "memory":
            item = Item(
                new_item_id("mem_"),
                "bench",
                "memory",
                user="alice",
                namespace="default",
                text=body,
                content_hash=content_hash(body),
                created_at=now,
            )
        else:
            item = Item(
                new_item_id("chk_"),
                "bench",
                "chunk",
                user="",
                namespace="kb",
                text=body,
                content_hash=content_hash(body),
                created_at=now,
                document_id=f"doc{n // 50}",
                chunk_index=n % 50,
            )
        made.append(item)
    return made
