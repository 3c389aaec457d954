"""The metrics endpoint the server starts first, what it leaves until it answers SERVING
(docs/deploy.md, "Start-up: what loads when"), the jobs that start once it serves, and a
start cut short by SIGTERM. What can stop a start (an address it cannot listen on, say)
is `server.listening`'s."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from agent.engine import Engine
from agent.llm.deferred import preload
from agent.llm.roles import ModelRoles
from agent.llm.window.encodings import Encodings, encoding_for_model
from core.metrics import REGISTRY
from server.listening import StartupError, reason
from server.settings import Settings
from server.wiring.own import OwnServices
from server.wiring.services import Webhooks
from server.wiring.stores import start_retention
from stores.build import DurableStores

T = TypeVar("T")


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


def serving_jobs(
    settings: Settings,
    engine: Engine,
    durable: DurableStores,
    webhooks: Webhooks,
    own: OwnServices,
    encodings: Encodings,
    models: ModelRoles | None,
) -> list[asyncio.Task[None]]:
    """The jobs that start once the server serves: webhook delivery, the evaluation runs'
    holder and the schedules' firing, what waits for serving (`after_serving`) and the
    retention sweeps."""
    return [
        webhooks.start(engine.replica, durable.rpcs),
        *own.start(),
        asyncio.create_task(after_serving(encodings, models)),
        *start_retention(settings, durable.database),
    ]
