"""What can stop the server from starting (an address it cannot listen on, say), the
metrics endpoint it starts first, and what it leaves until it answers SERVING
(docs/deploy.md, "Start-up: what loads when")."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from agent.llm.deferred import preload
from agent.llm.roles import ModelRoles
from agent.llm.window.encodings import Encodings, encoding_for_model
from core.metrics import REGISTRY

T = TypeVar("T")


class StartupError(Exception):
    """The server cannot start as configured; the message names the setting to change.
    `agentd serve` prints it on one line and exits with status 2."""


def listening_socket(address: str) -> socket.socket:
    """A TCP socket bound to `address` (host:port, [v6 host]:port; no host: 127.0.0.1),
    listening. OSError when it cannot be bound, ValueError for a port that is no number."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, int(port)), family=family)


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


@dataclass
class MetricsEndpoint:
    """The Prometheus endpoint, served from a thread of its own."""

    address: str
    http: Any

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def start_metrics(address: str) -> MetricsEndpoint | None:
    """Serve /metrics on `address` (host:port; port 0 picks one), or nothing when empty.
    StartupError when the address cannot be bound (a port in use, say)."""
    if not address:
        return None
    from prometheus_client import start_http_server

    host, _, port = address.rpartition(":")
    try:
        http, _thread = start_http_server(int(port), addr=host.strip("[]"), registry=REGISTRY)
    except (OSError, ValueError) as error:
        raise StartupError(
            f"cannot serve metrics on {address} (AGENTD_METRICS_ADDRESS): {reason(error)}; "
            "choose another address, port 0 for any free port, or empty to turn metrics off"
        ) from None
    return MetricsEndpoint(f"{host}:{http.server_port}", http)


async def after_serving(encodings: Encodings, models: ModelRoles | None) -> None:
    """What start-up leaves until health answers SERVING, started then: the models' SDK
    imported in a worker thread (deferred models), the tokenizer ranks checked (said
    once: exact counts or estimates) and the executor model's encoding built in another."""
    preload(models)
    executor = models.for_role("executor").name if models is not None else ""
    name = encoding_for_model(executor) if executor else None
    await asyncio.to_thread(encodings.load, [name] if name else [])


async def unless_stopped(start: Coroutine[Any, Any, T], stop: asyncio.Event) -> T | None:
    """`start`'s result, or None when `stop` is set first (SIGTERM during start-up): the
    start is then cancelled, as the signal's default action would have ended it, and the
    process exits without having served."""
    starting = asyncio.ensure_future(start)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if starting.done():
        return starting.result()
    starting.cancel()
    await asyncio.gather(starting, return_exceptions=True)
    return None
