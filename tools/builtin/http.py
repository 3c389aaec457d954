"""`http_request`: GET and POST with size, time and redirect limits.

Every connection, including each redirect hop, goes through a network
backend that resolves the host itself, refuses any address that is not
globally routable (private, loopback, link-local, multicast, reserved,
shared, IPv4-mapped forms of those) unless it lies in an explicitly allowed
network, and then connects to the address it checked, so a DNS answer that
changes between check and connect (rebinding) cannot slip through.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import socket
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpcore

from core.errors import DestinationNotAllowedError, FieldViolation, InvalidArgumentError
from core.identity import CallContext
from tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from tools.outcomes import ToolFailed

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
REDIRECT_STATUSES = {301, 302, 303, 307, 308}
DROPPED_REQUEST_HEADERS = {"host", "content-length", "transfer-encoding", "connection", "te"}
CROSS_ORIGIN_DROPPED = {"authorization", "cookie", "proxy-authorization"}


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


def refusal(address: IPAddress, allowed: Iterable[IPNetwork]) -> str | None:
    """Why `address` may not be reached, or None when it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if any(address in net for net in allowed if net.version == address.version):
        return None
    for label, flag in (
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("private", address.is_private),
        ("multicast", address.is_multicast),
        ("unspecified", address.is_unspecified),
        ("reserved", address.is_reserved),
    ):
        if flag:
            return f"{label} addresses are not allowed"
    if not address.is_global:
        return "non-public addresses are not allowed"
    return None


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
        raise ToolFailed(f"cannot connect to {host}:{port}: {last}")

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise ToolFailed("unix sockets are not allowed")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def _check_url(url: str, field_name: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise InvalidArgumentError(
            [FieldViolation(field_name, "only http and https URLs are allowed")]
        )
    if not parts.hostname:
        raise InvalidArgumentError([FieldViolation(field_name, "the URL has no host")])


def _charset(content_type: str) -> str:
    for param in content_type.split(";")[1:]:
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            return value.strip('"')
    return "utf-8"


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
        url = str(arguments["url"])
        _check_url(url, "arguments.url")
        method = str(arguments.get("method", "GET"))
        if "body" in arguments and "json" in arguments:
            raise InvalidArgumentError(
                [FieldViolation("arguments.json", "give body or json, not both")]
            )
        headers: dict[str, str] = {"user-agent": self._limits.user_agent}
        headers["accept-encoding"] = "identity"
        for key, value in dict(arguments.get("headers") or {}).items():
            if key.lower() not in DROPPED_REQUEST_HEADERS:
                headers[key.lower()] = str(value)
        content: bytes | None = None
        if "json" in arguments:
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
                httpcore.AsyncConnectionPool(
                    network_backend=GuardedBackend(self._limits.allowed_networks),
                    max_connections=4,
                ) as pool,
            ):
                return await self._follow(pool, method, url, headers, content, started)
        except TimeoutError:
            raise ToolFailed(
                f"no complete response within {self._limits.timeout_seconds:g} s"
            ) from None
        except httpcore.TimeoutException:
            raise ToolFailed("the server did not answer in time") from None
        except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as exc:
            raise ToolFailed(f"request failed: {type(exc).__name__}: {exc}") from None

    async def _follow(
        self,
        pool: httpcore.AsyncConnectionPool,
        method: str,
        url: str,
        headers: dict[str, str],
        content: bytes | None,
        started: float,
    ) -> ToolOutput:
        redirects: list[str] = []
        timeout = {"connect": self._limits.timeout_seconds, "read": self._limits.timeout_seconds}
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
                    target = urljoin(url, location)
                    _check_url(target, "redirect location")
                    if urlsplit(target)[:2] != urlsplit(url)[:2]:
                        for name in CROSS_ORIGIN_DROPPED:
                            headers.pop(name, None)
                    if response.status == 303 or (
                        response.status in (301, 302) and method == "POST"
                    ):
                        method, content = "GET", None
                        headers.pop("content-type", None)
                    redirects.append(target)
                    url = target
                    continue
                body = bytearray()
                truncated = False
                async for chunk in response.aiter_stream():
                    body.extend(chunk)
                    if len(body) > self._limits.max_response_bytes:
                        truncated = True
                        del body[self._limits.max_response_bytes :]
                        break
                return self._output(response, url, redirects, bytes(body), truncated, started)

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
        try:
            text = body.decode(_charset(content_type), errors="replace")
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
        if "json" in content_type and not truncated:
            with contextlib.suppress(json.JSONDecodeError):
                data["json"] = json.loads(text)
        return ToolOutput(data=data, text=f"HTTP {response.status}\n{text}")


def _header(headers: list[tuple[bytes, bytes]], name: str) -> str | None:
    for key, value in headers:
        if key.decode("latin-1").lower() == name:
            return value.decode("latin-1")
    return None
