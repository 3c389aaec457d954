"""Where Redis is and how agentd uses it: what the settings describe, without Redis's
client (an embedded server never imports it; `stores.redis` has the connections)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from core import secrets


@dataclass(frozen=True, slots=True)
class RedisOptions:
    url: str
    max_connections: int = 32
    """Connections of the call path's pool."""
    pool_timeout_seconds: float = 5.0
    """How long a caller waits for a free connection before the call fails UNAVAILABLE."""
    socket_timeout_seconds: float = 10.0
    """How long one command may take before it is retried."""
    cancelled_reply_seconds: float = 1.0
    """How long a caller cancelled while its reply is on its way waits for that reply, to
    give its connection back in step, before the connection is dropped instead."""
    retries: int = 3
    """Retries (with backoff and jitter) of a command that met a connection error."""
    client_name: str = "agentd"
    """Shown by CLIENT LIST, so an operator can tell agentd's connections apart."""


def shown(url: str) -> str:
    """A Redis URL as it may be printed: its password hidden (also one in its query)."""
    parts = urlsplit(url)
    if parts.password is not None:
        user = parts.username or ""
        host = parts.netloc.rpartition("@")[2]
        url = url.replace(parts.netloc, f"{user}:***@{host}", 1)
    if parts.query:
        url = url.replace(parts.query, secrets.scrub(f"?{parts.query}")[1:], 1)
    return url
