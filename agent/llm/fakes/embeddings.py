"""`/v1/embeddings` of the fake model server: deterministic vectors in which similar texts
are near (`agent.llm.hash_embeddings`), of `dimensions` (the request's `dimensions` when
it sends one; by default DEFAULT_DIMENSIONS, the size agentd expects unless
AGENTD_EMBEDDING_DIMENSIONS says otherwise). Tests make it fail (`fail_status`) or answer
the wrong dimensions (`dimensions`) to see how agentd takes an endpoint that misbehaves."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from agent.llm import hash_embeddings

DEFAULT_DIMENSIONS = 1536
"""The size of the vectors served when neither the server nor the request names one: the
default of AGENTD_EMBEDDING_DIMENSIONS, so that agentd pointed at the fake model with no
embedding size set gets what it expects (a test keeps the two equal)."""
MAX_INPUTS = 2048
"""Texts one request may carry (OpenAI's limit)."""


@dataclass
class FakeEmbeddings:
    dimensions: int = DEFAULT_DIMENSIONS
    """Dimensions of the vectors served when a request names none."""
    fail_status: int = 0
    """Answer every request with this HTTP status (0: answer normally)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Every request body, in order."""

    async def handle(self, request: web.Request) -> web.Response:
        body = await scripted_body(request, self.requests, self.fail_status, "embeddings")
        if isinstance(body, web.Response):
            return body
        texts = body.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if (
            not isinstance(texts, list)
            or not texts
            or len(texts) > MAX_INPUTS
            or not all(isinstance(t, str) and t for t in texts)
        ):
            return _error(400, "`input` must be a non-empty string or list of non-empty strings")
        dimensions = body.get("dimensions") or self.dimensions
        if not isinstance(dimensions, int) or not 1 <= dimensions <= 4096:
            return _error(400, "`dimensions` must be an integer from 1 to 4096")
        tokens = sum(hash_embeddings.tokens(t) for t in texts)
        return web.json_response(
            {
                "object": "list",
                "model": body.get("model", "fake-embedding"),
                "data": [
                    {
                        "object": "embedding",
                        "index": i,
                        "embedding": hash_embeddings.vector(t, dimensions).tolist(),
                    }
                    for i, t in enumerate(texts)
                ],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )


async def scripted_body(
    request: web.Request, requests: list[dict[str, Any]], fail_status: int, endpoint: str
) -> dict[str, Any] | web.Response:
    """The request's JSON object, recorded in `requests`; or the error response to send
    (not a JSON object: 400; `fail_status` set: that status, as scripted)."""
    try:
        body = await request.json()
    except json.JSONDecodeError:
        return _error(400, "request body is not JSON")
    if not isinstance(body, dict):
        return _error(400, "request body must be an object")
    requests.append(body)
    if fail_status:
        return _error(fail_status, f"the {endpoint} endpoint is failing (scripted)")
    return body


def _error(status: int, message: str) -> web.Response:
    kind = "invalid_request_error" if status == 400 else "server_error"
    return web.json_response(
        {"error": {"message": message, "type": kind, "code": None}}, status=status
    )
