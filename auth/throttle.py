"""Refused credentials per client address: a caller guessing keys or replaying bad
tokens is slowed down before it costs a key lookup, a token check or an audit row.

Each refusal takes a token from the address's bucket (`AGENTD_AUTH_FAILURE_LIMIT`,
e.g. `30/m`); an address with none left is answered RESOURCE_EXHAUSTED with the
time until it has one again, and only an API key this process already knows to be
good still gets through (a gateway sharing an address with a bad client keeps
working). Buckets live in the process, kept for the most recent addresses.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from stores.rate_limits.base import Rate
from stores.rate_limits.memory import TokenBuckets


class FailureThrottle:
    def __init__(
        self,
        rate: Rate,
        *,
        capacity: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self._buckets = TokenBuckets(capacity=capacity, clock=clock)

    def wait(self, peer: str) -> float:
        """Seconds until `peer` may be refused again; 0.0 when it may be now."""
        return self._buckets.peek(peer, self.rate)

    def refused(self, peer: str) -> None:
        """Count one refusal of `peer`'s credentials."""
        self._buckets.take(peer, self.rate)


def peer_address(peer: str | None) -> str:
    """The address part of a gRPC peer string: `ipv4:10.0.0.7:51234` -> `10.0.0.7`,
    `ipv6:[::1]:51234` -> `::1`; other forms (unix sockets) stay whole."""
    if not peer:
        return ""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0] or rest
    if kind == "ipv6":
        host = rest.rpartition(":")[0] if rest.startswith("[") else rest
        return host.strip("[]")
    return peer
