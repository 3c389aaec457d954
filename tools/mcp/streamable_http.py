"""Talking to an MCP server over streamable HTTP, with bounds on what is read.

The SDK's streamable HTTP client reads a plain JSON answer whole. Here every response
body passes through `CappedStream`: a plain body announced (Content-Length) or found to
be longer than the limit, or one server-sent event longer than it, fails the call it
answered (the SDK turns the stream error into that call's error) and no more of it is
read. Such an error's message holds TOO_LARGE, agentd's own words, so that the call's
error is known for what it is whatever the SDK writes around it. Headers come from the
toolsets file, their secrets from the environment.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx2
from mcp.client._transport import TransportStreams
from mcp.client.streamable_http import streamable_http_client

from tools.toolsets.config import HttpServer

CONNECT_SECONDS = 10.0
READ_SECONDS = 300.0
"""A server may hold a stream of events open; calls are bounded by their own timeouts."""


TOO_LARGE = "(AGENTD_TOOLSETS_MAX_RESULT_BYTES)"


def too_large(limit: int) -> str:
    """What a call whose answer was over the limit comes to."""
    return f"the MCP server's answer is over {limit:,} bytes {TOO_LARGE}; the rest was not read"


class ResponseTooLarge(httpx2.StreamError):
    def __init__(self, limit: int) -> None:
        super().__init__(too_large(limit))


class EventTooLarge(httpx2.SSEError):
    """An event past the limit (an SSEError: the SDK fails the call it answered)."""

    def __init__(self, limit: int) -> None:
        super().__init__(too_large(limit))


_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


class CappedStream(httpx2.AsyncByteStream):
    """A response body that stops past `limit` bytes: in all (ResponseTooLarge), or, for
    an event stream (`events`), in one event (EventTooLarge)."""

    def __init__(
        self, inner: httpx2.AsyncByteStream, limit: int, announced: int = 0, events: bool = False
    ) -> None:
        self._inner = inner
        self._limit = limit
        self._announced = announced
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        if self._announced > self._limit and not self._events:  # not read at all
            raise ResponseTooLarge(self._limit)
        tail = b""
        async for chunk in self._inner:
            seen += len(chunk)
            if self._events:  # bytes since the last event's end
                ends = [m.end() for m in _EVENT_END.finditer(tail + chunk)]
                seen = len(tail) + len(chunk) - ends[-1] if ends else seen
                tail = (tail + chunk)[-3:]
            if seen > self._limit:
                raise EventTooLarge(self._limit) if self._events else ResponseTooLarge(self._limit)
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
        events = response.headers.get("content-type", "").startswith("text/event-stream")
        length = response.headers.get("content-length", "")
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        # The error comes from reading the body: the SDK makes it the error of the call
        # that body answered (an error raised here would end the whole connection).
        announced = int(length) if length.isdigit() else 0
        response.stream = CappedStream(stream, self._limit, announced, events)
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
        # The SDK's own bound on an event is a backstop: CappedStream's comes first.
        streamable_http_client(
            server.url, http_client=client, max_sse_event_size=2 * limit + 1024
        ) as streams,
    ):
        yield streams
