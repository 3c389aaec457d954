"""A POST to an OpenAI-compatible endpoint beside chat completions (`/embeddings`,
`/rerank`): the SDK's low-level `post` (its key, base URL and timeout), retried by us
(tenacity: bounded attempts, exponential backoff with jitter) on what `is_retryable`
says may pass (429, 5xx, timeouts, connection errors); what still fails is `fail`'s
exception, in words naming the endpoint."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import openai
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from agent.llm.openai import is_retryable


async def post_json(
    client: openai.AsyncOpenAI,
    path: str,
    body: dict[str, Any],
    *,
    attempts: int,
    backoff: tuple[float, float],
    endpoint: str,
    fail: Callable[[str], Exception],
) -> Any:
    """The endpoint's JSON answer to `body` at `path`; `fail(why)` raised when it cannot
    be had (`endpoint` names it in `why`: "embeddings", "reranking")."""
    try:
        async for attempt in AsyncRetrying(
            stop=stop_after_attempt(attempts),
            wait=wait_exponential_jitter(multiplier=backoff[0], max=backoff[1]),
            retry=retry_if_exception(is_retryable),
            reraise=True,
        ):
            with attempt:
                return await client.post(path, body=body, cast_to=object)
    except openai.APIStatusError as error:
        why = f"the {endpoint} endpoint answered {error.status_code}: {error.message}"
        raise fail(why) from None
    except openai.APIConnectionError as error:
        raise fail(f"cannot reach the {endpoint} endpoint: {error}") from None
    raise AssertionError("unreachable")  # pragma: no cover
