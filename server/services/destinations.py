"""Where agentd may send to on its own (A2A push notifications, remote A2A agents): a URL
checked as `http_request` checks one (AGENTD_HTTP_ALLOWED_NETWORKS), every address its
host resolves to included."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Sequence
from urllib.parse import urlsplit

from core.errors import FieldViolation, InvalidArgumentError
from tools.builtin.addresses import IPNetwork, refusal
from tools.builtin.http import check_url


async def checked_destination(url: str, allowed: Sequence[IPNetwork]) -> str:
    """`url` as it will be POSTed to, or InvalidArgumentError: not http(s), or a host
    that resolves to an address `http_request` may not reach."""
    url, _ = await resolved_destination(url, allowed)
    return url


async def resolved_destination(url: str, allowed: Sequence[IPNetwork]) -> tuple[str, str]:
    """`checked_destination`, with the first address the host resolved to (every one of
    them checked): a caller that connects to it, never resolving the name again, cannot
    be sent elsewhere by a DNS answer that changes in between."""
    url = check_url(url, "url")
    host = urlsplit(url).hostname or ""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise InvalidArgumentError(
            [FieldViolation("url", f"cannot resolve host {host!r}: {error.strerror}")]
        ) from None
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
    for address in addresses:
        why = refusal(address, allowed)
        if why is not None:
            raise InvalidArgumentError(
                [FieldViolation("url", f"{host} ({address}) is not an allowed destination: {why}")]
            )
    return url, str(addresses[0])
