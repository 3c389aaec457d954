"""Knowledge search with optional reranking by a model.

Without reranking a search is the store's hybrid search (`KnowledgeBases.search`): chunks
at or above the cosine threshold, vector and keyword rankings fused by reciprocal rank,
the first top_k kept. With it, the same fused search fetches more candidates (top_k ×
AGENTD_RERANK_CANDIDATES_FACTOR, at most AGENTD_RERANK_MAX_CANDIDATES; the threshold
still applies to cosine similarity before fusion, so reranking never lets in a chunk the
threshold kept out), the reranking model scores each against the question, and the
top_k it finds most relevant are kept in its order (`Hit.rerank_score`, `Hit.fused_rank`).
Candidates the model leaves unscored follow in their fused order.

Whether a search is reranked: a request's explicit choice (the SearchKnowledge RPC's
`rerank`), else the running agent's `knowledge: {rerank: …}`, else AGENTD_KNOWLEDGE_RERANK;
and never without a reranking model (AGENTD_RERANK_MODEL): a request that asks for it
then is refused (INVALID_ARGUMENT), an agent's wish is ignored.

A reranker that fails (down, too slow, an unusable reply) never fails the search: the
fused order is kept, a warning is logged, and the `Retrieval` says so (`warning`), for
the tool's result and the RPC to show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import structlog

from agent.knowledge.documents import KnowledgeBases
from agent.llm.rerank import Reranker, RerankFailed
from core.errors import FieldViolation, InvalidArgumentError
from records.agents.knowledge_keys import rerank_preference
from records.knowledge.items import Hit

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class Retrieval:
    """What a knowledge search found, and whether the reranking model ordered it."""

    hits: list[Hit] = field(default_factory=list)
    reranked: bool = False
    warning: str = ""
    """Why a search meant to be reranked kept its fused order ("" otherwise)."""


class KnowledgeSearch:
    """`KnowledgeBases.search`, reranked by `reranker` when one is set and wanted."""

    def __init__(
        self,
        knowledge: KnowledgeBases,
        reranker: Reranker | None = None,
        *,
        default: bool = True,
        candidates_factor: int = 4,
        max_candidates: int = 50,
    ) -> None:
        if candidates_factor < 1 or max_candidates < 1:
            raise ValueError("candidates_factor and max_candidates must be positive")
        self.knowledge, self.reranker = knowledge, reranker
        self.default = default
        self.candidates_factor, self.max_candidates = candidates_factor, max_candidates

    @property
    def threshold(self) -> float:
        return self.knowledge.threshold

    def wanted(self, rerank: bool | None) -> bool:
        """Whether a search with this explicit choice (None: none) is reranked."""
        if rerank and self.reranker is None:
            raise InvalidArgumentError(
                [
                    FieldViolation(
                        "rerank", "no reranking model is configured here (AGENTD_RERANK_MODEL)"
                    )
                ]
            )
        if self.reranker is None:
            return False
        if rerank is not None:
            return rerank
        preference = rerank_preference()
        return self.default if preference is None else preference

    def candidates(self, top_k: int, asked: int = 0) -> int:
        """Fused candidates a reranked search of `top_k` fetches (at least top_k; the model
        is sent at most `max_candidates` of them)."""
        return max(top_k, min(asked or top_k * self.candidates_factor, self.max_candidates))

    async def search(
        self,
        tenant: str,
        knowledge_base_ids: Sequence[str],
        question: str,
        *,
        top_k: int | None = None,
        threshold: float | None = None,
        rerank: bool | None = None,
        candidates: int = 0,
    ) -> Retrieval:
        """The top_k chunks for `question` (see the module's docstring)."""
        top_k = top_k or self.knowledge.top_k
        reranker = self.reranker if self.wanted(rerank) else None
        pool = self.candidates(top_k, candidates) if reranker is not None else top_k
        fused = await self.knowledge.search(
            tenant, knowledge_base_ids, question, top_k=pool, threshold=threshold
        )
        if reranker is None or not fused:
            return Retrieval(fused[:top_k])
        try:
            sent = [h.item.text for h in fused[: self.max_candidates]]
            scored = await reranker.rerank(question, sent, top_k)
        except RerankFailed as error:
            log.warning(
                "reranking failed; the fused order is kept",
                tenant=tenant,
                knowledge_bases=list(knowledge_base_ids),
                error=str(error),
            )
            return Retrieval(fused[:top_k], warning=f"reranking failed: {error}")
        return Retrieval(reordered(fused, scored, top_k), reranked=True)


def reordered(fused: Sequence[Hit], scored: Sequence[tuple[int, float]], top_k: int) -> list[Hit]:
    """The top_k of `fused` in the model's order (then the unscored, in fused order), each
    with its score and its fused rank."""
    ranked = [replace(fused[i], rerank_score=s, fused_rank=i + 1) for i, s in scored]
    seen = {i for i, _ in scored}
    rest = (replace(h, fused_rank=n + 1) for n, h in enumerate(fused) if n not in seen)
    return [*ranked, *rest][:top_k]
