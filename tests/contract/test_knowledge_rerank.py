"""Reranking of knowledge search on every backend, by the fake server's `/v1/rerank`
through the real `openai` client: the fused ranking puts a chunk that only shares the
question's words first; the reranking model, which reads word order, puts the chunk that
answers first. The cosine threshold still applies before fusion; a reranker that fails
keeps the fused order and says so; the search never fails for it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.knowledge.documents import KnowledgeBases
from agent.knowledge.rerank import KnowledgeSearch
from agent.llm import usage
from agent.llm.embeddings import HashEmbedder
from agent.llm.fakes.server import FakeOpenAIServer
from agent.llm.rerank import OpenAIReranker
from core.errors import InvalidArgumentError
from records.agents.knowledge_keys import preferring
from stores.knowledge.base import KnowledgeStore
from tests.contract.knowledge_backends import BACKENDS, knowledge_store

QUESTION = "How long is the warranty of the X200 router?"
ANSWER = "The warranty of the X200 router is 24 months from the day of delivery."
LOOKALIKE = (
    "Router FAQ: how is the X200 set up? Long is the cable, and the router warranty card is "
    "in the box; the X200 warranty card is of router paper."
)
"""Shares more of the question's words than the answer does (the fused ranking puts it
first), in another order (the reranking model does not)."""


@pytest.fixture(params=BACKENDS)
async def store(
    request: pytest.FixtureRequest, tmp_path: Path, pgvector_socket: str
) -> AsyncIterator[KnowledgeStore]:
    async with knowledge_store(request.param, tmp_path, pgvector_socket) as made:
        yield made


@pytest.fixture
async def llm() -> AsyncIterator[FakeOpenAIServer]:
    async with FakeOpenAIServer() as server:
        yield server


async def two_documents(store: KnowledgeStore, **options: float) -> tuple[KnowledgeBases, str, str]:
    kb = KnowledgeBases(store, HashEmbedder(256), chunk_tokens=100, overlap=10, **options)  # type: ignore[arg-type]
    answer, _ = await kb.add_document("acme", "support", ANSWER.encode(), "text/plain")
    lookalike, _ = await kb.add_document("acme", "support", LOOKALIKE.encode(), "text/plain")
    return kb, answer, lookalike


def reranker(llm: FakeOpenAIServer) -> OpenAIReranker:
    return OpenAIReranker("fake-rerank", base_url=llm.base_url, backoff_initial_seconds=0.01)


async def test_reranking_puts_the_chunk_that_answers_first(
    store: KnowledgeStore, llm: FakeOpenAIServer
) -> None:
    kb, answer, lookalike = await two_documents(store, threshold=0.3)
    search = KnowledgeSearch(kb, reranker(llm))

    fused = await search.search("acme", ["support"], QUESTION, top_k=1, rerank=False)
    assert [h.item.document_id for h in fused.hits] == [lookalike]  # fusion gets it wrong
    assert not fused.reranked
    assert fused.hits[0].rerank_score is None
    assert llm.rerank.requests == []

    with usage.counting() as spent:
        found = await search.search("acme", ["support"], QUESTION, top_k=1)
    assert found.reranked
    assert not found.warning
    assert [h.item.document_id for h in found.hits] == [answer]
    top = found.hits[0]
    assert top.fused_rank == 2
    assert top.rerank_score is not None
    assert top.rerank_score > 0.6
    assert top.similarity < fused.hits[0].similarity  # the cosine score is still the chunk's
    sent = llm.rerank.requests[-1]
    assert sent["model"] == "fake-rerank"
    assert sent["query"] == QUESTION
    assert sorted(sent["documents"]) == sorted([ANSWER, LOOKALIKE])  # 4 × top_k candidates
    assert sent["top_n"] == 1
    question_tokens = (len(QUESTION) + 3) // 4
    assert spent.tokens > question_tokens  # the embedding and the reranking tokens
    await search.reranker.close()  # type: ignore[union-attr]


async def test_the_threshold_still_applies_before_reranking(
    store: KnowledgeStore, llm: FakeOpenAIServer
) -> None:
    kb, _, lookalike = await two_documents(store, threshold=0.3)
    search = KnowledgeSearch(kb, reranker(llm))
    fused = await search.search("acme", ["support"], QUESTION, top_k=2, rerank=False)
    cosine = {h.item.document_id: h.similarity for h in fused.hits}
    cut = (cosine[lookalike] + min(cosine.values())) / 2  # between the two: the answer is out
    found = await search.search("acme", ["support"], QUESTION, top_k=2, threshold=cut)
    assert found.reranked
    assert [h.item.document_id for h in found.hits] == [lookalike]
    assert llm.rerank.requests[-1]["documents"] == [LOOKALIKE]
    await search.reranker.close()  # type: ignore[union-attr]


async def test_a_failing_reranker_keeps_the_fused_order_and_says_so(
    store: KnowledgeStore, llm: FakeOpenAIServer
) -> None:
    kb, answer, lookalike = await two_documents(store, threshold=0.3)
    made = OpenAIReranker("fake-rerank", base_url=llm.base_url, max_attempts=2)
    search = KnowledgeSearch(kb, made)
    llm.rerank.fail_status = 503
    with usage.counting() as spent:
        found = await search.search("acme", ["support"], QUESTION, top_k=2)
    assert not found.reranked
    assert "503" in found.warning
    assert [h.item.document_id for h in found.hits] == [lookalike, answer]
    assert all(h.rerank_score is None and h.fused_rank == 0 for h in found.hits)
    assert len(llm.rerank.requests) == 2  # retried once, then given up
    assert spent.tokens == (len(QUESTION) + 3) // 4  # the question's embedding only
    await made.close()
    down = OpenAIReranker("fake-rerank", base_url="http://127.0.0.1:9/v1", max_attempts=1)
    found = await KnowledgeSearch(kb, down).search("acme", ["support"], QUESTION, top_k=2)
    assert "cannot reach" in found.warning
    assert [h.item.document_id for h in found.hits] == [lookalike, answer]
    await down.close()


async def test_who_decides_whether_a_search_is_reranked(
    store: KnowledgeStore, llm: FakeOpenAIServer
) -> None:
    kb, answer, lookalike = await two_documents(store, threshold=0.3)
    with pytest.raises(InvalidArgumentError, match="no reranking model"):
        await KnowledgeSearch(kb).search("acme", ["support"], QUESTION, rerank=True)
    with preferring({"rerank": True}):  # an agent's wish without a reranker: ignored
        plain = await KnowledgeSearch(kb).search("acme", ["support"], QUESTION, top_k=1)
    assert [h.item.document_id for h in plain.hits] == [lookalike]

    off = KnowledgeSearch(kb, reranker(llm), default=False)
    assert not (await off.search("acme", ["support"], QUESTION, top_k=1)).reranked
    with preferring({"rerank": True}):  # the agent asks for it
        assert (await off.search("acme", ["support"], QUESTION, top_k=1)).reranked
        # a request's own choice comes first
        assert not (await off.search("acme", ["support"], QUESTION, rerank=False)).reranked
    on = KnowledgeSearch(kb, reranker(llm))
    with preferring({"rerank": False}):
        found = await on.search("acme", ["support"], QUESTION, top_k=1)
    assert not found.reranked
    assert [h.item.document_id for h in found.hits] == [lookalike]
    assert on.candidates(5) == 20
    assert on.candidates(5, 3) == 5  # never fewer than top_k
    assert KnowledgeSearch(kb, max_candidates=12).candidates(5) == 12
    capped = KnowledgeSearch(kb, reranker(llm), max_candidates=1)
    found = await capped.search("acme", ["support"], QUESTION, top_k=2)
    assert llm.rerank.requests[-1]["documents"] == [LOOKALIKE]  # never more than the cap
    assert [(h.item.document_id, h.fused_rank) for h in found.hits] == [(lookalike, 1), (answer, 2)]
    assert found.hits[0].rerank_score is not None
    assert found.hits[1].rerank_score is None  # not sent: it follows in its fused order
    await capped.reranker.close()  # type: ignore[union-attr]
    for made in (off, on):
        await made.reranker.close()  # type: ignore[union-attr]
