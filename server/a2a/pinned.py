"""Connecting to a remote A2A agent at the address its destination check approved.

The check (`push.resolved_destination`, `http_request`'s rules) resolves the host and
checks every address; a client that then resolved the name again could be sent to
another address by a DNS answer that changed in between (DNS rebinding). So the agent
card is fetched through `GuardedBackend` (`agent.inputs.fetching.fetch`, which resolves,
checks and connects to the checked address in one step), and the gRPC channel is opened
to the checked address, with the host's name kept as the channel's authority (what
virtual hosting routes by).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import grpc

DEFAULT_PORTS = {"http": 80, "https": 443}


def pinned_target(url: str, address: str) -> tuple[str, str]:
    """The gRPC target for the checked `url` (http(s)://host[:port]/) at `address`, and
    the authority the channel presents (the host's own name and port)."""
    parts = urlsplit(url)
    port = parts.port or DEFAULT_PORTS.get(parts.scheme, 443)
    host = parts.hostname or ""
    at = f"[{address}]" if ":" in address else address
    named = f"[{host}]" if ":" in host else host
    return f"{at}:{port}", f"{named}:{port}"


class PinnedChannels:
    """A `grpc_channel_factory` for the SDK: each interface URL of the card maps to the
    target its check approved; a URL that was not checked is refused."""

    def __init__(self) -> None:
        self._targets: dict[str, tuple[str, str]] = {}

    def pin(self, interface_url: str, checked_url: str, address: str) -> None:
        self._targets[interface_url] = pinned_target(checked_url, address)

    def __call__(self, interface_url: str) -> grpc.aio.Channel:
        try:
            target, authority = self._targets[interface_url]
        except KeyError:
            raise ValueError(f"{interface_url} was not checked as a destination") from None
        return grpc.aio.insecure_channel(target, options=[("grpc.default_authority", authority)])
