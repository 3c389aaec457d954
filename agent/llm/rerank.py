"""Reranking: a model scores how well each of a few passages answers a query.

`Reranker` is the narrow interface (one async method). `OpenAIReranker` speaks the
`/rerank` API that vLLM, Jina and Cohere-compatible servers serve (`POST
{base_url}/rerank` with `{model, query, documents, top_n}`, answered by `{results:
[{index, relevance_score}]}`; a bare list of `{index, score}` is read too; Text
Embeddings Inference's own `/rerank`, which takes `texts`, is not spoken),
through the `openai` client's low-level `post`, so the key, base URL, timeout and the
retries of 429, 5xx, timeouts and connection errors (tenacity, bounded, exponential
backoff with jitter) behave as for the other model calls. Tokens the server reports
(`usage.total_tokens`, or Cohere's `meta.billed_units`) are charged to the running task
like embedding tokens (`agent.llm.usage`). A reply that is not usable (an index
out of range or repeated, a score that is not a finite number) is a `RerankFailed`, as
is an endpoint that fails after its retries: the caller decides what a failure means.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent.llm import usage

if TYPE_CHECKING:  # the OpenAI SDK loads when a reranker is made
    import openai

MAX_QUERY_CHARS = 4_000
MAX_DOCUMENT_CHARS = 8_000
"""A passage longer than this is cut before it is sent (about 2k tokens)."""
MAX_DOCUMENTS = 1_000
"""Passages one `rerank` call may be given."""


class RerankFailed(Exception):  # noqa: N818 - an outcome the caller handles, never a status
    """The reranking endpoint failed (after retries) or answered something unusable."""


class Reranker(abc.ABC):
    """Scores passages against a query with one reranking `model`.

    `rerank` may be called concurrently; it returns (index into `documents`, relevance
    score) for at most `top_n` passages, most relevant first, or raises RerankFailed
    (and then nothing was charged)."""

    model: str

    @abc.abstractmethod
    async def rerank(
        self, query: str, documents: Sequence[str], top_n: int
    ) -> list[tuple[int, float]]: ...

    async def close(self) -> None:  # noqa: B027 - optional
        """Release connections (no-op by default)."""


class OpenAIReranker(Reranker):
    """One reranking model on one `/rerank` endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_seconds: float = 10.0,
        max_attempts: int = 2,
        backoff_initial_seconds: float = 0.25,
        backoff_max_seconds: float = 2.0,
        client: openai.AsyncOpenAI | None = None,
    ) -> None:
        import openai

        if max_attempts <= 0 or timeout_seconds <= 0:
            raise ValueError("max_attempts and timeout_seconds must be positive")
        self.model = model
        self._client = client or openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or "unused",
            timeout=timeout_seconds,
            max_retries=0,  # retries are ours, below
        )
        self._attempts = max_attempts
        self._backoff = (backoff_initial_seconds, backoff_max_seconds)

    async def close(self) -> None:
        await self._client.close()

    async def rerank(
        self, query: str, documents: Sequence[str], top_n: int
    ) -> list[tuple[int, float]]:
        if not documents:
            return []
        if len(documents) > MAX_DOCUMENTS:
            raise ValueError(f"at most {MAX_DOCUMENTS} passages may be reranked in one call")
        top = max(1, min(top_n, len(documents)))
        body = {
            "model": self.model,
            "query": query[:MAX_QUERY_CHARS],
            "documents": [d[:MAX_DOCUMENT_CHARS] or " " for d in documents],
            "top_n": top,
        }
        reply = await self._post(body)
        ranked = results_of(reply, len(documents))
        usage.charge(tokens_of(reply))
        return ranked[:top]

    async def _post(self, body: dict[str, Any]) -> Any:
        from agent.llm.posting import post_json

        return await post_json(
            self._client,
            "/rerank",
            body,
            attempts=self._attempts,
            backoff=self._backoff,
            endpoint="reranking",
            fail=RerankFailed,
        )


def results_of(reply: Any, count: int) -> list[tuple[int, float]]:
    """(index, score) of the reply, most relevant first, checked."""
    found = reply.get("results") if isinstance(reply, dict) else reply
    if not isinstance(found, list):
        raise RerankFailed("the reranking endpoint returned no results")
    ranked: dict[int, float] = {}
    for entry in found:
        entry = entry if isinstance(entry, dict) else {}
        index, score = entry.get("index"), entry.get("relevance_score", entry.get("score"))
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise RerankFailed(f"the reranking endpoint returned an index out of range: {index!r}")
        if index in ranked:
            raise RerankFailed(f"the reranking endpoint returned index {index} twice")
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise RerankFailed("the reranking endpoint returned a score that is not a number")
        if not math.isfinite(score):
            raise RerankFailed("the reranking endpoint returned a score that is not finite")
        ranked[index] = float(score)
    return sorted(ranked.items(), key=lambda pair: (-pair[1], pair[0]))


def tokens_of(reply: Any) -> int:
    """Tokens the reply reports: `usage` (vLLM, Jina) or `meta.billed_units` (Cohere)."""
    if not isinstance(reply, dict):
        return 0
    used = reply.get("usage")
    if not isinstance(used, dict):
        meta = reply.get("meta")
        used = meta.get("billed_units") if isinstance(meta, dict) else None
    if not isinstance(used, dict):
        return 0
    for key in ("total_tokens", "prompt_tokens", "input_tokens"):
        value = used.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    return 0
