"""One MCP server: a connection that lives in its own asyncio task.

The task connects (starting a stdio server, or reaching an HTTP one), negotiates the
protocol, lists the server's tools and hands them to `on_tools`; then it waits,
listing them again when the server says its list changed (a change notification, or on
the 2026 protocol a `subscriptions/listen` event) — at most once per
`list_interval_seconds`, however often it says so. When the server is lost (its process
ended, a call found the connection closed, or a ping went unanswered) the tools answer
`ToolUnavailableError` while the task reconnects after a wait that doubles from
`restart_initial_seconds` up to `restart_max_seconds`, with jitter (`RetryPolicy`), and
starts over once a connection stayed up that long, so a server that dies at once is not
restarted in a tight loop. `stop()` ends the task and the server with it.

Calls (`call`) come from other tasks, at most `max_concurrent_calls` at once, shared
fairly between tenants (`FairSlots`); each is bounded by its caller's timeout, so a slow
or hung server holds up only its own calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import httpx2
import mcp_types as types
import structlog
from mcp import Client
from mcp.client._transport import Transport
from mcp.client.session import IncomingMessage
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from core.errors import ToolUnavailableError
from core.metrics import TOOLSET_RESTARTS, TOOLSET_UP
from core.secrets import scrub
from records.tools.outcomes import ToolFailed
from tools.mcp.slots import FairSlots
from tools.mcp.stdio import RESULT_TOO_LARGE, stdio_transport
from tools.mcp.streamable_http import TOO_LARGE, http_transport, too_large
from tools.retries import RetryPolicy
from tools.toolsets.config import StdioServer, ToolsetConfig

log = structlog.get_logger(__name__)

MAX_PAGES = 50
MAX_TOOLS = 1000
CLIENT = types.Implementation(name="agentd", version="0.1.0")


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """What every MCP connection of the process shares (AGENTD_TOOLSETS_* settings)."""

    max_message_bytes: int = 1_000_000
    restart_initial_seconds: float = 0.5
    restart_max_seconds: float = 30.0
    connect_seconds: float = 20.0
    """The longest connecting and listing the tools may take."""
    ping_seconds: float = 15.0
    """How often a connected server is pinged (0: never); an unanswered ping loses it."""
    list_interval_seconds: float = 1.0
    """The least time between two listings of a server's tools: the changes it announces
    in between are listed at once when that time is up."""


ToolsListener = Callable[[Sequence[types.Tool]], None]


class McpConnection:
    """The connection to one toolset's MCP server; see the module docstring."""

    def __init__(
        self, toolset: ToolsetConfig, limits: ConnectionLimits, on_tools: ToolsListener
    ) -> None:
        assert toolset.mcp is not None
        self.toolset = toolset
        self._mcp = toolset.mcp
        self._limits = limits
        self._on_tools = on_tools
        self._client: Client | None = None
        self._slots = FairSlots(self._mcp.max_concurrent_calls)
        self._backoff = RetryPolicy(
            base_seconds=limits.restart_initial_seconds, max_seconds=limits.restart_max_seconds
        )
        self._listed_at = 0.0
        self.listings = 0
        """Listings made of the server's tools (each page counted once per listing)."""
        self._wake = asyncio.Event()
        self._refresh = self._lost = self._stopping = False
        self._tried = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._listed = ""
        """Digest of the last listing handed on."""
        self.listed: Sequence[types.Tool] | None = None
        """The server's tools as it last listed them (None: it has not yet)."""
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.why = "not connected yet"
        self.retry_at = 0.0
        self.restarts = 0

    @property
    def name(self) -> str:
        return self.toolset.name

    @property
    def connected(self) -> bool:
        return self._client is not None

    def unavailable(self) -> str:
        """Why calls cannot go through now, or "" when they can."""
        if self._client is not None:
            return ""
        wait = self.retry_at - time.monotonic()
        later = f"; reconnecting in {wait:.1f} s" if wait > 0 else ""
        return f"the MCP server of toolset {self.name!r} is down ({self.why}){later}"

    def reconfigure(self, toolset: ToolsetConfig) -> None:
        """Take the toolset's new definition, whose `mcp:` is this connection's."""
        assert toolset.mcp == self._mcp
        assert toolset.name == self.name
        self.toolset = toolset

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"agentd-mcp-{self.name}")

    async def first_attempt(self) -> None:
        """Return once the first connection attempt has succeeded or failed."""
        await self._tried.wait()

    async def drained(self, seconds: float) -> bool:
        """Wait (at most `seconds`) until no call is in flight; whether none is."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._idle.wait()
        return self._idle.is_set()

    async def stop(self, grace_seconds: float = 10.0) -> None:
        """End the connection (and a stdio server); in-flight calls fail."""
        self._stopping = True
        self._wake.set()
        task, self._task = self._task, None
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), grace_seconds)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        TOOLSET_UP.labels(self.name).set(0)

    async def call(
        self, tool: str, listed_as: str, arguments: dict[str, Any], tenant: str = "", **options: Any
    ) -> types.CallToolResult:
        """One `tools/call`, in one of the server's slots shared fairly between tenants
        (`FairSlots`). ToolUnavailableError when the server is not connected;
        ToolFailed when it refused the call, answered something unusable, or was lost
        during the call (transient, and its outcome unknown). `options` go to the SDK's
        `call_tool` (`progress_callback`)."""
        client = self._client
        if client is None:
            raise ToolUnavailableError(listed_as, self.unavailable(), self._retry_after())
        self._in_flight += 1
        self._idle.clear()
        try:
            return await self._call(client, tool, arguments, tenant, options)
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                self._idle.set()

    async def _call(
        self, client: Client, tool: str, arguments: dict[str, Any], tenant: str, options: Any
    ) -> types.CallToolResult:
        async with self._slots.hold(tenant):
            try:
                return await client.call_tool(tool, arguments, **options)
            except MCPError as error:
                if error.code == types.CONNECTION_CLOSED and TOO_LARGE in error.message:
                    raise ToolFailed(too_large(self._limits.max_message_bytes)) from None
                if error.code == types.CONNECTION_CLOSED:
                    raise self._lost_mid_call("the connection closed", client) from None
                if error.code in (RESULT_TOO_LARGE, types.PARSE_ERROR):  # ours, or capped
                    raise ToolFailed(error.message) from None
                raise ToolFailed(
                    f"the MCP server answered an error: {error.message}", code=error.code
                ) from None
            except httpx2.TransportError as error:
                raise self._lost_mid_call(type(error).__name__, client) from None
            except (ValidationError, RuntimeError) as error:
                raise ToolFailed(f"the MCP server's answer could not be used: {error}") from None

    def _lost_mid_call(self, why: str, client: Client) -> ToolFailed:
        if self._client is client:  # not a late answer of a connection already replaced
            self._connection_lost(why)
        return ToolFailed(
            f"the MCP server of toolset {self.name!r} was lost during the call ({why}); "
            "whether the call took effect is unknown",
            transient=True,
            outcome_unknown=True,
        )

    def _retry_after(self) -> float | None:
        wait = self.retry_at - time.monotonic()
        return wait if wait > 0 else None

    def _connection_lost(self, why: str) -> None:
        if self._client is not None:
            self.why = why
            self._client = None
            TOOLSET_UP.labels(self.name).set(0)
        self._lost = True
        self._wake.set()

    def _stopped(self) -> bool:
        return self._stopping

    def _request_refresh(self) -> None:
        self._refresh = True
        self._wake.set()

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._request_refresh()

    async def _run(self) -> None:
        failures = 1
        while not self._stopping:
            began = time.monotonic()
            try:
                await self._session()
                if time.monotonic() - began >= self._limits.restart_max_seconds:
                    failures = 1  # it was up a while
            except TimeoutError:
                seconds = self._limits.connect_seconds
                self.why = (
                    f"it did not answer within {seconds:g} s (AGENTD_TOOLSETS_CONNECT_SECONDS)"
                )
                log.warning("mcp server unavailable", toolset=self.name, why=self.why)
            except Exception as error:  # noqa: BLE001 - whatever ended it, reconnect
                self.why = _describe(error)
                log.warning("mcp server unavailable", toolset=self.name, why=self.why)
            finally:
                self._client = None
                TOOLSET_UP.labels(self.name).set(0)
                self._tried.set()
            if self._stopped():
                break
            delay = self._backoff.delay(failures)  # doubling, with jitter
            failures += 1
            self.retry_at = time.monotonic() + delay
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), delay)
            self.restarts += 1
            TOOLSET_RESTARTS.labels(self.name).inc()

    async def _session(self) -> None:
        """One connection, from connecting to losing it (or being stopped)."""
        self._lost = self._refresh = False
        async with contextlib.AsyncExitStack() as stack:
            async with asyncio.timeout(self._limits.connect_seconds):
                client = await stack.enter_async_context(self._new_client())
                await self._discover(client)
            self._client = client
            self.retry_at = 0.0
            TOOLSET_UP.labels(self.name).set(1)
            self._tried.set()
            log.info("mcp server connected", toolset=self.name, protocol=client.protocol_version)
            await self._serve(client)
            if self._lost:
                log.warning("mcp server lost", toolset=self.name, why=self.why)

    def _new_client(self) -> Client:
        server = self._mcp.server
        transport: Any
        limit = self._limits.max_message_bytes
        if isinstance(server, StdioServer):
            lost = self._connection_lost
            transport = stdio_transport(server, self.name, limit, lambda: lost("the server exited"))
        else:
            transport = http_transport(server, limit)
        return Client(
            cast(Transport, transport),
            mode=self._mcp.protocol,
            message_handler=self._on_message,
            client_info=CLIENT,
            cache=None,
        )

    async def _serve(self, client: Client) -> None:
        helpers = [asyncio.create_task(self._listen(client))]
        if self._limits.ping_seconds > 0:
            helpers.append(asyncio.create_task(self._ping(client)))
        try:
            while not (self._stopping or self._lost):
                await self._wake.wait()
                self._wake.clear()
                if self._refresh and not (self._stopping or self._lost):
                    if not await self._paced(self._listed_at + self._limits.list_interval_seconds):
                        break
                    self._refresh = False  # every change announced so far: one listing
                    async with asyncio.timeout(self._limits.connect_seconds):
                        await self._discover(client)
        finally:
            for helper in helpers:
                helper.cancel()
            await asyncio.gather(*helpers, return_exceptions=True)

    async def _paced(self, until: float) -> bool:
        """Wait until `until` (the time the next listing may be made); False when the
        connection was lost or stopped meanwhile. Changes announced meanwhile wait for
        the same listing."""
        while not (self._stopping or self._lost):
            left = until - time.monotonic()
            if left <= 0:
                return True
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), left)
        return False

    async def _discover(self, client: Client) -> None:
        """List the server's tools (every page, up to MAX_TOOLS); hand them on when they
        differ from the last listing."""
        self.listings += 1
        self._listed_at = time.monotonic()
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await client.list_tools(cursor=cursor, cache_mode="bypass")
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor or len(tools) >= MAX_TOOLS:
                break
        tools = tools[:MAX_TOOLS]
        listing = [tool.model_dump(mode="json", by_alias=True) for tool in tools]
        digest = hashlib.sha256(json.dumps(listing, sort_keys=True).encode()).hexdigest()
        if digest != self._listed:
            self._listed = digest
            self.listed = tools
            self._on_tools(tools)

    async def _listen(self, client: Client) -> None:
        """On the 2026 protocol, change events come on a subscription of their own."""
        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    self._request_refresh()
        except Exception as error:  # noqa: BLE001 - without events, no refresh: logged
            log.info(
                "mcp server change events unavailable", toolset=self.name, why=_describe(error)
            )

    async def _ping(self, client: Client) -> None:
        """Check the server answers, every `ping_seconds`: a ping on the 2025 protocol; on
        the 2026 one (which has no ping) a listing of the tools, which also catches a
        change the server did not announce."""
        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        while True:
            await asyncio.sleep(self._limits.ping_seconds)
            try:
                async with asyncio.timeout(self._limits.connect_seconds):
                    if modern:
                        await self._discover(client)
                    else:
                        await client.send_ping()
            except Exception as error:  # noqa: BLE001 - any failure loses the server
                self._connection_lost(f"a ping went unanswered: {_describe(error)}")
                return


def _describe(error: BaseException) -> str:
    """One line about what went wrong (the first of a group of errors), secrets scrubbed."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error) or type(error).__name__
    return scrub(f"{type(error).__name__}: {text}"[:500])
