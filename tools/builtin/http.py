"""`http_request`: GET and POST with size, time and redirect limits.

Every connection, including each redirect hop, goes through a network
backend that resolves the host itself, refuses any address of the IANA
special-purpose registries (and IPv6 forms that carry such an IPv4 address:
mapped, NAT64, 6to4; see `addresses.py`) unless it lies in an explicitly
allowed network, and then connects to the address it checked, so a DNS
answer that changes between check and connect (rebinding) cannot slip
through. Each redirect hop is also checked against the caller's grants (URL
prefixes) like the first URL; a hop to another origin carries none of the
caller's headers, and a body is never sent to another origin.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import socket
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

import httpcore

from core.errors import DestinationNotAllowedError, FieldViolation, InvalidArgumentError
from core.identity import CallContext
from core.text import MAX_JSON_DEPTH as RESULT_DEPTH
from core.text import json_depth
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.tools.outcomes import ToolFailed
from tools.builtin.addresses import IPNetwork, refusal
from tools.builtin.bodies import body_file, charset, is_binary

REDIRECT_STATUSES = {301, 302, 303, 307, 308}
DROPPED_REQUEST_HEADERS = {"host", "content-length", "transfer-encoding", "connection", "te"}
OWN_HEADERS = ("user-agent", "accept-encoding")
"""The tool's own headers: the only ones a redirect to another origin carries on."""
MAX_JSON_DEPTH = 64
MAX_ANSWER_JSON_DEPTH = RESULT_DEPTH - 1
"""An answer's JSON nested deeper comes back as text alone: it sits one level down in the
result, which every tool's result is held to (`core.text.MAX_JSON_DEPTH`)."""
"""An answer's JSON nested deeper comes back as text alone: a result travels as a
protobuf Struct, whose parser stops at 100 message levels (two per JSON level)."""


@dataclass(frozen=True, slots=True)
class HttpLimits:
    """Limits and the destination policy of `http_request`."""

    timeout_seconds: float = 15.0
    """Whole-request time limit, redirects included."""
    max_response_bytes: int = 1_000_000
    """Bytes of body kept; the rest is not read."""
    max_redirects: int = 5
    """Redirects followed before the call fails."""
    allowed_networks: Sequence[IPNetwork] = field(default_factory=tuple)
    """Non-public networks that may be reached anyway (empty: none)."""
    user_agent: str = "agentd/0.1 (+http_request tool)"
    """User-Agent sent unless the call sets one."""


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolves, checks, then connects to the checked address only."""

    def __init__(self, allowed: Sequence[IPNetwork]) -> None:
        self._allowed = allowed
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror as exc:
            raise ToolFailed(f"cannot resolve host {host!r}: {exc.strerror}") from None
        addresses: list[str] = []
        for info in infos:
            text = str(info[4][0]).split("%", 1)[0]
            address = ipaddress.ip_address(text)
            why = refusal(address, self._allowed)
            if why is not None:
                raise DestinationNotAllowedError(host, text, why)
            addresses.append(text)
        last: Exception | None = None
        for address_text in dict.fromkeys(addresses):
            try:
                return await self._inner.connect_tcp(
                    address_text, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        # Transient: a tool that may be repeated (a declared HTTP tool) tries again.
        raise ToolFailed(f"cannot connect to {host}:{port}: {last}", transient=True)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise ToolFailed("unix sockets are not allowed")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def check_url(url: str, field_name: str) -> str:
    """`url` as sent on the wire (non-ASCII path and query percent-encoded, an
    internationalised host in its ASCII form), or InvalidArgumentError."""

    def refuse(why: str) -> InvalidArgumentError:
        return InvalidArgumentError([FieldViolation(field_name, why)])

    try:
        parts = urlsplit(url)
        port = parts.port  # ValueError for a port outside 0..65535
    except ValueError as exc:
        raise refuse(f"is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise refuse("only http and https URLs are allowed")
    if not parts.hostname:
        raise refuse("the URL has no host")
    if port == 0:
        raise refuse("port 0 is not a port to connect to")
    try:
        host = parts.hostname.encode("idna").decode("ascii")
    except UnicodeError:
        raise refuse(f"host {parts.hostname!r} is not a valid host name") from None
    if parts.username is not None or parts.password is not None:
        raise refuse("credentials in the URL are not allowed; send a header instead")
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    path = quote(parts.path, safe="/%:@!$&'()*+,;=-._~")
    query = quote(parts.query, safe="/?%:@!$&'()*+,;=-._~")
    return urlunsplit((parts.scheme, netloc, path, query, ""))


def default_headers(user_agent: str) -> dict[str, str]:
    """The headers every request starts with (identity: a compressed body could not be
    held to the byte limit)."""
    return {"user-agent": user_agent, "accept-encoding": "identity"}


def timeouts(seconds: float) -> dict[str, float]:
    """httpcore's per-phase timeouts, each `seconds`."""
    return {"connect": seconds, "read": seconds, "write": seconds, "pool": seconds}


@contextlib.asynccontextmanager
async def guarded_pool(
    allowed: Sequence[IPNetwork], max_connections: int
) -> AsyncIterator[httpcore.AsyncConnectionPool]:
    """A connection pool for one call's requests, every connection made by
    `GuardedBackend` (resolved, checked, then connected to the checked address). What
    httpcore raises inside it becomes ToolFailed: a timeout or a network error transient
    (a tool that may be repeated is tried again), a protocol error not."""
    try:
        async with httpcore.AsyncConnectionPool(
            network_backend=GuardedBackend(allowed), max_connections=max_connections
        ) as pool:
            yield pool
    except httpcore.TimeoutException:
        raise ToolFailed("the server did not answer in time", transient=True) from None
    except httpcore.NetworkError as exc:
        raise ToolFailed(f"request failed: {type(exc).__name__}: {exc}", transient=True) from None
    except (httpcore.ProtocolError, httpcore.UnsupportedProtocol) as exc:
        raise ToolFailed(f"request failed: {type(exc).__name__}: {exc}") from None


async def read_capped(
    response: httpcore.Response, limit: int, *, oversize: str = ""
) -> tuple[bytes, bool]:
    """The response body, never more than `limit` bytes of it read, and whether it was
    cut. With `oversize` (the setting that sets the limit) a longer body fails the call
    (ToolFailed) instead of being cut."""
    body = bytearray()
    async for chunk in response.aiter_stream():
        body.extend(chunk)
        if len(body) > limit:
            if oversize:
                raise ToolFailed(
                    f"the answer is over {limit:,} bytes ({oversize}); the rest was not read"
                )
            del body[limit:]
            return bytes(body), True
    return bytes(body), False


class HttpRequest(Tool):
    def __init__(self, limits: HttpLimits | None = None) -> None:
        self._limits = limits or HttpLimits()
        self.spec = ToolSpec(
            name="http_request",
            description=(
                "Send an HTTP GET or POST request to a public web address and return the "
                "status, headers and body (at most "
                f"{self._limits.max_response_bytes} bytes). Redirects are followed up to "
                f"{self._limits.max_redirects} times. Private and local addresses are refused."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "url": {"type": "string", "minLength": 1, "maxLength": 2_048},
                    "method": {"type": "string", "enum": ["GET", "POST"], "default": "GET"},
                    "headers": {
                        "type": "object",
                        "additionalProperties": {"type": "string", "maxLength": 4_096},
                        "maxProperties": 32,
                    },
                    "body": {"type": "string", "maxLength": 1_000_000},
                    "json": {"description": "A JSON body (sets Content-Type)."},
                },
                "required": ["url"],
                "additionalProperties": False,
            },
            category="web",
            permission=PermissionLevel.WRITE,
            risk=RiskLevel.HIGH,
            idempotent=False,
            timeout_seconds=self._limits.timeout_seconds + 1.0,
        )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        url = check_url(str(arguments["url"]), "arguments.url")
        method = str(arguments.get("method", "GET"))
        if "body" in arguments and "json" in arguments:
            raise InvalidArgumentError(
                [FieldViolation("arguments.json", "give body or json, not both")]
            )
        headers = default_headers(self._limits.user_agent)
        for key, value in dict(arguments.get("headers") or {}).items():
            if key.lower() not in DROPPED_REQUEST_HEADERS:
                headers[key.lower()] = str(value)
        content: bytes | None = None
        if "json" in arguments:
            if json_depth(arguments["json"]) > MAX_JSON_DEPTH:
                raise InvalidArgumentError(
                    [FieldViolation("arguments.json", f"is nested deeper than {MAX_JSON_DEPTH}")]
                )
            content = json.dumps(arguments["json"]).encode()
            headers["content-type"] = "application/json"
        elif "body" in arguments:
            content = str(arguments["body"]).encode()
        if content is not None and method == "GET":
            raise InvalidArgumentError(
                [FieldViolation("arguments.method", "GET requests have no body")]
            )

        started = time.perf_counter()
        try:
            async with (
                asyncio.timeout(self._limits.timeout_seconds),
                guarded_pool(self._limits.allowed_networks, 4) as pool,
            ):
                return await self._follow(pool, method, url, headers, content, started, context)
        except TimeoutError:
            raise ToolFailed(
                f"no complete response within {self._limits.timeout_seconds:g} s"
            ) from None

    async def _follow(
        self,
        pool: httpcore.AsyncConnectionPool,
        method: str,
        url: str,
        headers: dict[str, str],
        content: bytes | None,
        started: float,
        context: CallContext,
    ) -> ToolOutput:
        redirects: list[str] = []
        timeout = timeouts(self._limits.timeout_seconds)
        while True:
            async with pool.stream(
                method,
                url,
                headers=list(headers.items()),
                content=content,
                extensions={"timeout": timeout},
            ) as response:
                location = _header(response.headers, "location")
                if response.status in REDIRECT_STATUSES and location:
                    if len(redirects) >= self._limits.max_redirects:
                        raise ToolFailed(f"more than {self._limits.max_redirects} redirects")
                    target = check_url(urljoin(url, location), "redirect location")
                    # Every hop answers to the caller's grants (URL prefixes) like the first.
                    if context.check_argument is not None:
                        context.check_argument("url", target)
                    if response.status == 303 or (
                        response.status in (301, 302) and method == "POST"
                    ):
                        method, content = "GET", None
                        headers.pop("content-type", None)
                    if _origin(target) != _origin(url):
                        if content is not None:
                            raise ToolFailed(
                                f"not followed: a {response.status} redirect to another origin "
                                f"({_origin(target)}) would send the request body there"
                            )
                        # Another origin gets none of the caller's headers, only the tool's.
                        headers = {k: v for k, v in headers.items() if k in OWN_HEADERS}
                    redirects.append(target)
                    url = target
                    continue
                body, truncated = await read_capped(response, self._limits.max_response_bytes)
                return self._output(response, url, redirects, body, truncated, started)

    def _output(
        self,
        response: httpcore.Response,
        url: str,
        redirects: list[str],
        body: bytes,
        truncated: bool,
        started: float,
    ) -> ToolOutput:
        response_headers: dict[str, str] = {}
        for raw_key, raw_value in response.headers:
            key = raw_key.decode("latin-1").lower()
            value = raw_value.decode("latin-1")
            response_headers[key] = (
                f"{response_headers[key]}, {value}" if key in response_headers else value
            )
        content_type = response_headers.get("content-type", "")
        files = (body_file(url, content_type, body),) if is_binary(content_type, body) else ()
        if files:  # kept as an artifact by the door, never decoded into U+FFFD
            cut = ", cut at the size limit" if truncated else ""
            text = f"({len(body)} bytes of {files[0].media_type}{cut}: kept as a file)"
        else:
            try:
                text = body.decode(charset(content_type), errors="replace")
            except LookupError:
                text = body.decode("utf-8", errors="replace")
        data: dict[str, Any] = {
            "status": response.status,
            "url": url,
            "headers": response_headers,
            "body": text,
            "truncated": truncated,
            "redirects": redirects,
            "elapsed_seconds": round(time.perf_counter() - started, 6),
        }
        if "json" in content_type and not truncated and not files:
            with contextlib.suppress(ValueError):
                data["json"] = _shallow_json(text)
        return ToolOutput(data=data, text=f"HTTP {response.status}\n{text}", files=files)


def _shallow_json(text: str) -> Any:
    """The answer's JSON; ValueError when it is not JSON or is nested deeper than
    MAX_ANSWER_JSON_DEPTH, and the answer comes back as text alone (200,000 levels
    crashed the parser with RecursionError; 64 could not be sent as a result)."""
    try:
        parsed = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deep to parse") from None
    if json_depth(parsed) > MAX_ANSWER_JSON_DEPTH:
        raise ValueError(f"nested deeper than {MAX_ANSWER_JSON_DEPTH}")
    return parsed


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, parts.hostname, parts.port or default


def _header(headers: list[tuple[bytes, bytes]], name: str) -> str | None:
    for key, value in headers:
        if key.decode("latin-1").lower() == name:
            return value.decode("latin-1")
    return None
