"""What can stop the server from starting, the metrics endpoint it starts first, and
health reported SERVING once it serves."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from grpc_health.v1 import health_pb2
from grpc_health.v1._async import HealthServicer

from auth.authenticator import Authenticator
from core.metrics import REGISTRY
from server.a2a import A2A


async def report_serving(
    health: HealthServicer,
    services: Sequence[str],
    port: int,
    a2a: A2A | None,
    authenticator: Authenticator | None,
) -> None:
    """Health SERVING for the server and `services`, and for A2A once its HTTP address
    (if any) is up."""
    await health.set("", health_pb2.HealthCheckResponse.SERVING)
    for name in services:
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    if a2a is not None:
        await a2a.start(port, health, authenticator)


class StartupError(Exception):
    """The server cannot start as configured; the message names the setting to change.
    `agentd serve` prints it on one line and exits with status 2."""


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
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise StartupError(
            f"cannot serve metrics on {address} (AGENTD_METRICS_ADDRESS): {reason}; "
            "choose another address, port 0 for any free port, or empty to turn metrics off"
        ) from None
    return MetricsEndpoint(f"{host}:{http.server_port}", http)
