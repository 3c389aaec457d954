"""Listening on an address, and what stops the server from starting: a TCP socket bound
to host:port, what the operating system said when it could not be bound, and
`StartupError` (the gRPC address, the metrics and A2A HTTP addresses, the providers
file: each front door and the wiring raise it, `agentd serve` reports it)."""

from __future__ import annotations

import os
import socket


class StartupError(Exception):
    """The server cannot start as configured; the message names the setting to change.
    `agentd serve` prints it on one line and exits with status 2."""


def listening_socket(address: str) -> socket.socket:
    """A TCP socket bound to `address` (host:port, [v6 host]:port; no host: 127.0.0.1),
    listening. OSError when it cannot be bound, ValueError for a port that is no number."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    bound = socket.create_server((host, int(port)), family=family)
    # Accepted connections inherit it: without, an HTTP response's second write (its body
    # after its head) waits for the client's delayed ACK, 40 ms a call on a kept-alive
    # connection.
    bound.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return bound


def reason(error: OSError | ValueError) -> str:
    """What the operating system said (`Address already in use`), else the error's text."""
    if isinstance(error, OSError) and error.errno:
        return os.strerror(error.errno)
    return str(error)


def unbindable(address: str) -> str:
    """Why `address` cannot be listened on, as the operating system says when asked again
    (gRPC, which could not bind it, does not say why)."""
    try:
        listening_socket(address).close()
    except (OSError, ValueError) as error:
        return reason(error)
    return "the address is in use or not available"
