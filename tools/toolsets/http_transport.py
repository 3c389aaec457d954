"""Talking to an MCP server over streamable HTTP, with bounds on what is read.

The SDK's streamable HTTP client bounds each server-sent event (`max_sse_event_size`)
but reads a plain JSON answer whole. Here every non-streaming response body passes
through `CappedStream`: a body announced (Content-Length) or found to be longer than
the limit fails the call it answered (the SDK turns the stream error into that call's
error), and no more of it is read. Headers come from the toolsets file, their secrets
from the environment.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
from mcp.client._transport import TransportStreams
from mcp.client.streamable_http import streamable_http_client

from tools.toolsets.config import HttpServer

CONNECT_SECONDS = 10.0
READ_SECONDS = 300.0
"""A server may hold a stream of events open; calls are bounded by their own timeouts."""


class ResponseTooLarge(httpx2.StreamError):
    def __init__(self, limit: int) -> None:
        super().__init__(
            f"the MCP server's answer is over {limit:,} bytes "
            "(AGENTD_TOOLSETS_MAX_RESULT_BYTES); the rest was not read"
        )


class CappedStream(httpx2.AsyncByteStream):
    """A response body that stops with ResponseTooLarge past `limit` bytes."""

    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, announced: int = 0) -> None:
        self._inner = inner
        self._limit = limit
        self._announced = announced

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        if self._announced > self._limit:  # not read at all
            raise ResponseTooLarge(self._limit)
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise ResponseTooLarge(self._limit)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """Caps every response body except event streams (whose events the SDK caps)."""

    def __init__(self, limit: int) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._limit = limit

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            return response
        length = response.headers.get("content-length", "")
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        # The error comes from reading the body: the SDK makes it the error of the call
        # that body answered (an error raised here would end the whole connection).
        announced = int(length) if length.isdigit() else 0
        response.stream = CappedStream(stream, self._limit, announced)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def http_transport(server: HttpServer, limit: int) -> AsyncIterator[TransportStreams]:
    """Connect to the server; yield the (read, write) message streams a session uses."""
    client = httpx2.AsyncClient(
        headers=dict(server.headers),
        timeout=httpx2.Timeout(CONNECT_SECONDS, read=READ_SECONDS),
        transport=CappedTransport(limit),
    )
    async with (
        client,
        streamable_http_client(server.url, http_client=client, max_sse_event_size=limit) as streams,
    ):
        yield streams
