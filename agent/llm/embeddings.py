"""Embeddings: texts to vectors, through any OpenAI-compatible `/v1/embeddings` endpoint.

`Embedder` is the narrow interface (one async method); `OpenAIEmbedder` sends batches of
at most `batch_size` texts with the official `openai` client, retries 429, 5xx, timeouts
and connection errors a bounded number of times (tenacity, exponential backoff with
jitter), checks that every text got one vector of the configured dimensions, and counts
the tokens the endpoint reports. The tokens are charged to the running task's budget
(`agent.llm.usage`). `HashEmbedder` is the deterministic stand-in the fake model
server serves (`agent.llm.hash_embeddings`).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any

import numpy as np
import openai

from agent.llm import hash_embeddings, usage
from agent.llm.posting import post_json
from core.errors import EmbeddingsUnavailableError
from records.knowledge.items import EmbeddingSpace, Vectors, normalised

MAX_TEXT_CHARS = 32_000
"""A text longer than this is cut before it is embedded (about 8k tokens)."""
MAX_TEXTS = 100_000
"""Texts one `embed` call may be given (bounds the memory of one call)."""


class Embedder(abc.ABC):
    """Turns texts into vectors of one `space`.

    `embed` may be called concurrently; it returns one normalised row per text, in order,
    or raises EmbeddingsUnavailableError (and then nothing was charged for the failed
    batch). Tokens the endpoint reports are charged with `usage.charge`.
    """

    space: EmbeddingSpace

    @abc.abstractmethod
    async def embed(self, texts: Sequence[str]) -> Vectors: ...

    async def close(self) -> None:  # noqa: B027 - optional: most embedders hold nothing
        """Release connections (no-op by default)."""


class HashEmbedder(Embedder):
    """Hashed character n-grams, in process: similar texts are near. For tests and benches."""

    def __init__(self, dimensions: int = 256, model: str = "fake-embedding") -> None:
        self.space = EmbeddingSpace(model, dimensions)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        rows = np.stack([hash_embeddings.vector(t, self.space.dimensions) for t in texts])
        usage.charge(sum(hash_embeddings.tokens(t) for t in texts))
        return rows if len(texts) else np.zeros((0, self.space.dimensions), np.float32)


class OpenAIEmbedder(Embedder):
    """One embedding model on one OpenAI-compatible endpoint."""

    def __init__(
        self,
        model: str,
        dimensions: int,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        batch_size: int = 64,
        send_dimensions: bool = False,
        timeout_seconds: float = 30.0,
        max_attempts: int = 4,
        backoff_initial_seconds: float = 0.5,
        backoff_max_seconds: float = 8.0,
        client: openai.AsyncOpenAI | None = None,
    ) -> None:
        if dimensions <= 0 or batch_size <= 0 or max_attempts <= 0:
            raise ValueError("dimensions, batch_size and max_attempts must be positive")
        self.space = EmbeddingSpace(model, dimensions)
        self._client = client or openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or "unused",
            timeout=timeout_seconds,
            max_retries=0,  # retries are ours, below
        )
        self._batch = batch_size
        self._send_dimensions = send_dimensions
        self._attempts = max_attempts
        self._backoff = (backoff_initial_seconds, backoff_max_seconds)

    async def close(self) -> None:
        await self._client.close()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if len(texts) > MAX_TEXTS:
            raise ValueError(f"at most {MAX_TEXTS} texts may be embedded in one call")
        out = np.zeros((len(texts), self.space.dimensions), np.float32)
        spent = 0
        for start in range(0, len(texts), self._batch):
            batch = [t[:MAX_TEXT_CHARS] or " " for t in texts[start : start + self._batch]]
            rows, tokens = await self._embed_batch(batch)
            out[start : start + len(batch)] = rows
            spent += tokens
        usage.charge(spent)  # only once every batch came back: a failed call costs nothing
        return out

    async def _embed_batch(self, batch: list[str]) -> tuple[Vectors, int]:
        body: dict[str, Any] = {
            "model": self.space.model,
            "input": batch,
            "encoding_format": "float",
        }
        if self._send_dimensions:
            body["dimensions"] = self.space.dimensions
        reply = await self._post(body)
        return self._rows(reply, len(batch))

    async def _post(self, body: dict[str, Any]) -> Any:
        return await post_json(
            self._client,
            "/embeddings",
            body,
            attempts=self._attempts,
            backoff=self._backoff,
            endpoint="embeddings",
            fail=EmbeddingsUnavailableError,
        )

    def _rows(self, reply: Any, count: int) -> tuple[Vectors, int]:
        """The reply's vectors in input order, checked, normalised; and its tokens."""
        data = reply.get("data") if isinstance(reply, dict) else None
        if not isinstance(data, list) or len(data) != count:
            got = len(data) if isinstance(data, list) else "no"
            raise EmbeddingsUnavailableError(
                f"the embeddings endpoint returned {got} vectors for {count} texts"
            )
        rows = np.zeros((count, self.space.dimensions), np.float32)
        for position, item in enumerate(data):
            vector = item.get("embedding") if isinstance(item, dict) else None
            index = item.get("index", position) if isinstance(item, dict) else position
            if not isinstance(vector, list) or not isinstance(index, int) or index >= count:
                raise EmbeddingsUnavailableError("the embeddings endpoint returned no vector")
            if len(vector) != self.space.dimensions:
                raise EmbeddingsUnavailableError(
                    f"the embeddings endpoint returned vectors of {len(vector)} dimensions, "
                    f"but {self.space.model} is configured with {self.space.dimensions} "
                    f"(AGENTD_EMBEDDING_DIMENSIONS): set AGENTD_EMBEDDING_DIMENSIONS="
                    f"{len(vector)} if that is the model's size, or "
                    "AGENTD_EMBEDDING_SEND_DIMENSIONS=true if the model shortens its vectors "
                    "on request"
                )
            try:
                rows[index] = np.asarray(vector, dtype=np.float32)
            except (TypeError, ValueError):
                raise EmbeddingsUnavailableError(
                    "the embeddings endpoint returned a vector that is not numbers"
                ) from None
        if not np.all(np.isfinite(rows)):
            raise EmbeddingsUnavailableError("the embeddings endpoint returned non-finite numbers")
        used = reply.get("usage") if isinstance(reply, dict) else None
        tokens = used.get("prompt_tokens", 0) if isinstance(used, dict) else 0
        return normalised(rows), tokens if isinstance(tokens, int) and tokens >= 0 else 0
