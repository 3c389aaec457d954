"""Reranking of knowledge search by a model (`/rerank` of vLLM, Jina, Cohere)."""

from __future__ import annotations

from pydantic import Field

from server.settings.base import Section


class RerankSettings(Section):
    rerank_model: str | None = Field(
        None,
        description="reranking model name on a `/rerank` endpoint (vLLM, Jina and "
        "Cohere-compatible servers); knowledge search keeps its fused order without it",
    )
    rerank_base_url: str | None = Field(
        None,
        description="the reranking endpoint, `/rerank` is added to it (default: "
        "AGENTD_EMBEDDING_BASE_URL, then AGENTD_LLM_BASE_URL)",
    )
    rerank_api_key: str | None = Field(
        None, description="its API key (default: AGENTD_EMBEDDING_API_KEY, then AGENTD_LLM_API_KEY)"
    )
    knowledge_rerank: bool = Field(
        True,
        description="rerank knowledge searches when a reranking model is set, unless a "
        "SearchKnowledge request's `rerank` or an agent's `knowledge: {rerank: …}` says "
        "otherwise",
    )
    rerank_candidates_factor: int = Field(
        4,
        ge=1,
        le=20,
        description="a reranked search fetches top_k × this many fused candidates, then "
        "keeps the top_k the model finds most relevant",
    )
    rerank_max_candidates: int = Field(
        50, ge=1, le=500, description="the most candidates one search sends to the model"
    )
    rerank_timeout_seconds: float = Field(
        10.0, gt=0, le=120, description="per-request timeout of the reranking endpoint"
    )
    rerank_max_attempts: int = Field(
        2, ge=1, le=10, description="attempts on 429/5xx/connection errors"
    )
