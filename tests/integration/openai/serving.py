"""Where a test's server serves its HTTP address."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A loopback port free now (the HTTP address is then bound to it: its base URL is
    known before the server starts)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
