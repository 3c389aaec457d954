"""One POST to a receiver, through the pool every delivery shares: its connections are made
by `GuardedBackend` (the host resolved, every address checked against the destination
rules of `http_request`, the connection made to the checked address), so a DNS answer
that changes between the check and the connection cannot send it elsewhere."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence

import httpcore

from tools.builtin.addresses import IPNetwork
from tools.builtin.http import GuardedBackend, timeouts

MAX_CONNECTIONS = 16


@contextlib.asynccontextmanager
async def guarded_pool(allowed: Sequence[IPNetwork]) -> AsyncIterator[httpcore.AsyncConnectionPool]:
    """The pool deliveries POST through (closed on exit)."""
    async with httpcore.AsyncConnectionPool(
        network_backend=GuardedBackend(allowed), max_connections=MAX_CONNECTIONS
    ) as pool:
        yield pool


async def post(
    pool: httpcore.AsyncConnectionPool,
    url: str,
    headers: list[tuple[str, str]],
    body: bytes,
    timeout_seconds: float,
) -> str | None:
    """None when the receiver took it (2xx), else why not ("HTTP 503", "ConnectError: ...")."""
    try:
        response = await pool.request(
            "POST",
            url,
            headers=headers,
            content=body,
            extensions={"timeout": timeouts(timeout_seconds)},
        )
    except Exception as error:  # noqa: BLE001 - any failure to deliver is retried
        return f"{type(error).__name__}: {error}"
    if 200 <= response.status < 300:
        return None
    return f"HTTP {response.status}"
