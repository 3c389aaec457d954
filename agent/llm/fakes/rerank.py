"""`/v1/rerank` of the fake model server, in the shape vLLM, Jina and
Cohere-compatible servers answer: `{results: [{index, relevance_score}]}`, most relevant
first, at most `top_n`. The relevance is deterministic and reads word order, which
similarity of bags of words (the fake embeddings, keyword search) cannot: the share of
the query's words and of its word pairs (bigrams, counted double) that the passage holds
too. A Chinese, Japanese or Korean character counts as a word. Tests make it fail
(`fail_status`) to see how agentd takes a reranker that misbehaves."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from agent.llm.fakes.embeddings import _error, scripted_body

MAX_DOCUMENTS = 1000
_WORD = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+")


def _grams(text: str) -> tuple[set[str], set[tuple[str, str]]]:
    words = _WORD.findall(text.casefold())
    return set(words), set(itertools.pairwise(words))


def relevance(query: str, document: str) -> float:
    """From 0 (nothing of the query) to 1 (every word and word pair of the query)."""
    words, pairs = _grams(query)
    if not words:
        return 0.0
    have_words, have_pairs = _grams(document)
    held = len(words & have_words) + 2 * len(pairs & have_pairs)
    return round(held / (len(words) + 2 * len(pairs)), 6)


def ranking(query: str, documents: Sequence[str], top_n: int) -> list[tuple[int, float]]:
    scored = [(i, relevance(query, d)) for i, d in enumerate(documents)]
    return sorted(scored, key=lambda pair: (-pair[1], pair[0]))[:top_n]


@dataclass
class FakeRerank:
    fail_status: int = 0
    """Answer every request with this HTTP status (0: answer normally)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Every request body, in order."""

    async def handle(self, request: web.Request) -> web.Response:
        body = await scripted_body(request, self.requests, self.fail_status, "reranking")
        if isinstance(body, web.Response):
            return body
        query, documents = body.get("query"), body.get("documents")
        if not isinstance(query, str) or not query:
            return _error(400, "`query` must be a non-empty string")
        if (
            not isinstance(documents, list)
            or not 0 < len(documents) <= MAX_DOCUMENTS
            or not all(isinstance(d, str) for d in documents)
        ):
            return _error(400, f"`documents` must be a list of 1 to {MAX_DOCUMENTS} strings")
        top_n = body.get("top_n", len(documents))
        if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
            return _error(400, "`top_n` must be a positive integer")
        tokens = (len(query) + sum(len(d) for d in documents) + 3) // 4
        results = [
            {"index": i, "relevance_score": score} for i, score in ranking(query, documents, top_n)
        ]
        return web.json_response(
            {
                "id": f"rerank-{len(self.requests)}",
                "model": body.get("model", "fake-rerank"),
                "results": results,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )
