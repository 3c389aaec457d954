"""Embeddings through the real `openai` client against the fake server's /v1/embeddings:
batches, usage charged, similar texts near, an endpoint down or of the wrong dimensions."""

from __future__ import annotations

import numpy as np
import pytest

from agent.llm import usage
from agent.llm.embeddings import HashEmbedder, OpenAIEmbedder
from agent.llm.fakes.embeddings import DEFAULT_DIMENSIONS
from agent.llm.fakes.server import FakeOpenAIServer
from core.errors import EmbeddingsUnavailableError
from server.settings import Settings


def embedder(server: FakeOpenAIServer, dimensions: int = 256, **options: object) -> OpenAIEmbedder:
    return OpenAIEmbedder(
        "fake-embedding",
        dimensions,
        base_url=server.base_url,
        backoff_initial_seconds=0.01,
        backoff_max_seconds=0.02,
        **options,  # type: ignore[arg-type]
    )


async def test_texts_are_embedded_in_batches_and_their_tokens_charged() -> None:
    async with FakeOpenAIServer(embedding_dimensions=256) as server:
        made = embedder(server, batch_size=2)
        texts = ["the cat sat on the mat", "a cat sat on a mat", "stock prices fell", "x"]
        with usage.counting() as spent:
            rows = await made.embed(texts)
        await made.close()
    assert rows.shape == (4, 256)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert [len(r["input"]) for r in server.embeddings.requests] == [2, 2]
    assert spent.tokens == sum(max(1, (len(t) + 3) // 4) for t in texts)
    assert spent.calls == 1
    assert float(rows[0] @ rows[1]) > float(rows[0] @ rows[2]) + 0.2  # similar texts are near
    local = await HashEmbedder(256).embed(texts)
    assert np.allclose(rows, local, atol=1e-5)  # the server and the local double agree


async def test_dimensions_are_sent_when_asked() -> None:
    async with FakeOpenAIServer() as server:
        made = embedder(server, 64, send_dimensions=True)
        rows = await made.embed(["hello"])
        await made.close()
    assert rows.shape == (1, 64)
    assert server.embeddings.requests[0]["dimensions"] == 64


async def test_vectors_of_the_wrong_dimensions_are_a_clear_error() -> None:
    async with FakeOpenAIServer(embedding_dimensions=128) as server:
        made = embedder(server, 256)
        with usage.counting() as spent, pytest.raises(EmbeddingsUnavailableError) as error:
            await made.embed(["hello"])
        await made.close()
    assert "128 dimensions" in error.value.message
    assert "256" in error.value.message
    assert "AGENTD_EMBEDDING_DIMENSIONS=128" in error.value.message  # the setting to change
    assert spent.tokens == 0


async def test_the_fake_model_serves_the_size_agentd_expects_by_default() -> None:
    assert Settings.model_fields["embedding_dimensions"].default == DEFAULT_DIMENSIONS
    async with FakeOpenAIServer() as server:
        made = embedder(server, Settings().embedding_dimensions)
        rows = await made.embed(["hello"])
        await made.close()
    assert rows.shape == (1, DEFAULT_DIMENSIONS)


async def test_an_endpoint_that_fails_is_retried_then_a_clear_error() -> None:
    async with FakeOpenAIServer() as server:
        server.embeddings.fail_status = 503
        made = embedder(server, max_attempts=3)
        with pytest.raises(EmbeddingsUnavailableError, match="answered 503"):
            await made.embed(["hello"])
        assert len(server.embeddings.requests) == 3
        server.embeddings.fail_status = 400
        with pytest.raises(EmbeddingsUnavailableError, match="answered 400"):
            await made.embed(["hello"])
        assert len(server.embeddings.requests) == 4  # a 400 is not retried
        await made.close()


async def test_an_endpoint_that_is_down_is_a_clear_error() -> None:
    async with FakeOpenAIServer() as server:
        url = server.base_url
    made = OpenAIEmbedder(
        "m", 8, base_url=url, max_attempts=2, backoff_initial_seconds=0.01, timeout_seconds=2
    )
    with pytest.raises(EmbeddingsUnavailableError, match="cannot reach"):
        await made.embed(["hello"])
    await made.close()
