"""The reranking client against the fake server's /v1/rerank (the real `openai` client):
the request's shape, the reply read in order, usage charged; a reply that cannot be used
is a RerankFailed, never a wrong order. The fake's relevance reads word order. An agent's
`knowledge:` mapping is checked like its other keys."""

from __future__ import annotations

import math

import pytest

from agent.llm import usage
from agent.llm.fakes.rerank import relevance
from agent.llm.fakes.server import FakeOpenAIServer
from agent.llm.rerank import OpenAIReranker, RerankFailed, results_of, tokens_of
from records.agents.definition import AgentInvalidError, parse_agent


async def test_passages_come_back_most_relevant_first_and_their_tokens_are_charged() -> None:
    documents = [
        "router the warranty of X200",
        "the warranty of the X200 router is two years",
        "shipping to Portugal",
    ]
    async with FakeOpenAIServer() as server:
        reranker = OpenAIReranker("fake-rerank", base_url=server.base_url)
        with usage.counting() as spent:
            ranked = await reranker.rerank("the warranty of the X200 router", documents, 2)
        assert await reranker.rerank("anything", [], 3) == []
        await reranker.close()
    assert [i for i, _ in ranked] == [1, 0]
    assert ranked[0][1] == 1.0
    assert ranked[0][1] > ranked[1][1]
    sent = server.rerank.requests[0]
    assert sent == {
        "model": "fake-rerank",
        "query": "the warranty of the X200 router",
        "documents": documents,
        "top_n": 2,
    }
    assert spent.tokens == (31 + sum(len(d) for d in documents) + 3) // 4
    assert len(server.rerank.requests) == 1  # nothing sent for no passages


async def test_a_failing_endpoint_is_retried_then_reported() -> None:
    async with FakeOpenAIServer() as server:
        server.rerank.fail_status = 500
        reranker = OpenAIReranker(
            "fake-rerank", base_url=server.base_url, max_attempts=3, backoff_initial_seconds=0.01
        )
        with usage.counting() as spent, pytest.raises(RerankFailed, match="answered 500"):
            await reranker.rerank("q", ["a", "b"], 1)
        server.rerank.fail_status = 400  # not retried
        with pytest.raises(RerankFailed, match="answered 400"):
            await reranker.rerank("q", ["a", "b"], 1)
        await reranker.close()
    assert len(server.rerank.requests) == 4
    assert spent.tokens == 0


def test_replies_are_read_in_every_shape_and_unusable_ones_refused() -> None:
    vllm = {"results": [{"index": 1, "relevance_score": 0.2}, {"index": 0, "relevance_score": 0.9}]}
    assert results_of(vllm, 2) == [(0, 0.9), (1, 0.2)]
    tei = [{"index": 0, "score": 0.1}, {"index": 1, "score": 0.5}]
    assert results_of(tei, 2) == [(1, 0.5), (0, 0.1)]
    for bad, problem in (
        ({"results": [{"index": 2, "relevance_score": 1.0}]}, "out of range"),
        ({"results": [{"index": -1, "relevance_score": 1.0}]}, "out of range"),
        ({"results": [{"index": True, "relevance_score": 1.0}]}, "out of range"),
        ({"results": [{"relevance_score": 1.0}]}, "out of range"),
        (
            {"results": [{"index": 0, "relevance_score": 1}, {"index": 0, "relevance_score": 1}]},
            "twice",
        ),
        ({"results": [{"index": 0, "relevance_score": "high"}]}, "not a number"),
        ({"results": [{"index": 0, "relevance_score": math.nan}]}, "not finite"),
        ({"results": [{"index": 0}]}, "not a number"),
        ({"error": "nope"}, "no results"),
        ("text", "no results"),
    ):
        with pytest.raises(RerankFailed, match=problem):
            results_of(bad, 2)
    assert tokens_of({"usage": {"total_tokens": 12}}) == 12
    assert tokens_of({"meta": {"billed_units": {"input_tokens": 7}}}) == 7
    assert tokens_of({"usage": {"total_tokens": -3}}) == 0
    assert tokens_of([]) == 0


def test_the_fake_relevance_reads_word_order() -> None:
    query = "warranty of the router"
    assert relevance(query, "the warranty of the router is long") == 1.0
    assert 0 < relevance(query, "router the of warranty") < 0.5  # the words, not the phrase
    assert relevance(query, "penguins on ice") == 0.0
    assert relevance("", "anything") == 0.0
    assert relevance("机器学习", "深度学习和机器学习") > relevance("机器学习", "学习机器")


def test_an_agent_s_knowledge_key_is_checked() -> None:
    agent = parse_agent({"id": "support", "knowledge": {"rerank": False}}, "a.yaml")
    assert agent.knowledge == {"rerank": False}
    assert parse_agent({"id": "support"}, "a.yaml").knowledge == {}
    for bad, field in (
        ({"rerank": "yes"}, "knowledge.rerank"),
        ({"top": 3}, "knowledge.top"),
        (["rerank"], "knowledge"),
    ):
        with pytest.raises(AgentInvalidError) as refused:
            parse_agent({"id": "support", "knowledge": bad}, "a.yaml")
        assert refused.value.field == field
