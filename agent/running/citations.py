"""Citations of a task's answer: the passages its `search_knowledge` calls retrieved, read
from the built-in tool's data (never from the model's text), kept on the run and put on
the final answer and the task."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from records.tasks import Citation

SEARCH_KNOWLEDGE = "search_knowledge"
SNIPPET_CHARS = 200
MAX_CITATIONS = 50


def citations_of(data: Any) -> list[Citation]:
    """The citations in a `search_knowledge` result's data (malformed entries skipped)."""
    passages = data.get("passages") if isinstance(data, dict) else None
    found = []
    for passage in passages if isinstance(passages, list) else ():
        cited = passage.get("citation") if isinstance(passage, dict) else None
        if not isinstance(cited, dict):
            continue
        try:
            found.append(
                Citation(
                    str(cited["knowledge_base_id"]),
                    str(cited["document_id"]),
                    int(cited["chunk_index"]),
                    float(cited["score"]),
                    str(passage.get("text", ""))[:SNIPPET_CHARS],
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    return found


def merged(citations: Iterable[Citation]) -> tuple[Citation, ...]:
    """One citation per chunk (its best score), best first, at most MAX_CITATIONS."""
    best: dict[tuple[str, str, int], Citation] = {}
    for c in citations:
        key = (c.knowledge_base_id, c.document_id, c.chunk_index)
        if key not in best or c.score > best[key].score:
            best[key] = c
    ranked = sorted(best.values(), key=lambda c: (-c.score, c.document_id, c.chunk_index))
    return tuple(ranked[:MAX_CITATIONS])
