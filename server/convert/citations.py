"""Citations (`records.tasks.Citation`) as the contract has them, on FinalAnswer and Task."""

from __future__ import annotations

from collections.abc import Iterable

from agentd.v1 import memory_pb2
from records.tasks import Citation


def citations_to_proto(citations: Iterable[Citation]) -> list[memory_pb2.Citation]:
    return [
        memory_pb2.Citation(
            knowledge_base_id=c.knowledge_base_id,
            document_id=c.document_id,
            chunk_index=c.chunk_index,
            score=c.score,
            snippet=c.snippet,
        )
        for c in citations
    ]
