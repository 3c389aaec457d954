"""The HTTP address on a server (`server.http`), and what a server serves beside its gRPC
services (`Fronts`): the doors AGENTD_HTTP_DOORS switches on,
each built from the engine and the services over it (never a store), behind one guard
holding the server's authenticator, rate limiters and RPC audit sink; started once the
gRPC server serves (health then reports `agentd.http` SERVING) and stopped with it.

A door is one entry of `DOORS`: its name in AGENTD_HTTP_DOORS and a function building it
from `DoorParts`. uvicorn, starlette and a door's modules are imported only when the
address is served.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog
from grpc_health.v1 import health_pb2

from core.identity import ANONYMOUS, Principal
from core.roles import Action
from server.http.checks import GuardChecks
from server.listening import StartupError
from server.settings import Settings
from server.wiring.role_table import role_table
from server.wiring.stores import Callers

if TYPE_CHECKING:
    from grpc_health.v1._async import HealthServicer

    from agent.conversations.service import Conversations
    from agent.definitions.catalog import Agents
    from agent.engine import Engine
    from server.http.address import HttpAddress
    from server.http.door import Door
    from server.services.tasks import TaskService
    from server.wiring.fronts.a2a import A2A
    from server.wiring.fronts.triggers import Triggers
    from stores.build import DurableStores
    from tools.registry import ToolRegistry

log = structlog.get_logger(__name__)

HEALTH_NAME = "agentd.http"
"""The HTTP address's name in gRPC health: SERVING once it listens."""


@dataclass(frozen=True, slots=True)
class DoorParts:
    """What a door is built from: the engine and the services over it, never a store."""

    settings: Settings
    engine: Engine
    tasks: TaskService
    conversations: Conversations
    agents: Agents
    registry: ToolRegistry
    a2a: A2A | None
    """A2A, when AGENTD_A2A is on (its door serves its request handler)."""
    triggers: Triggers | None = None
    """Inbound triggers (their door serves their deliveries)."""


def _a2a(parts: DoorParts) -> Door:
    if parts.a2a is None:
        raise StartupError(
            "AGENTD_HTTP_DOORS names a2a but A2A is off: set AGENTD_A2A=true, or leave a2a "
            "out of AGENTD_HTTP_DOORS"
        )
    return parts.a2a.door()


def _mcp(parts: DoorParts) -> Door:
    from server.mcp.door import mcp_door  # the mcp SDK, only when the door is served

    return mcp_door(parts.settings, parts.engine, parts.tasks, parts.agents, parts.registry)


def _openai(parts: DoorParts) -> Door:
    from server.openai.door import OpenAIDoor  # starlette: only when served

    heartbeat = parts.settings.heartbeat_seconds
    return OpenAIDoor(
        parts.engine, parts.tasks, parts.conversations, parts.agents, heartbeat_seconds=heartbeat
    )


def _triggers(parts: DoorParts) -> Door:
    from server.triggers.door import TriggerDoor  # starlette: only when served

    if parts.triggers is None:
        raise StartupError("AGENTD_HTTP_DOORS names triggers but no triggers were built")
    return TriggerDoor(parts.triggers.deliveries)


DOORS: dict[str, Callable[[DoorParts], Door]] = {
    "a2a": _a2a,
    "mcp": _mcp,
    "openai": _openai,
    "triggers": _triggers,
}
"""Every door this server can serve, by its name in AGENTD_HTTP_DOORS."""


def doors_on(settings: Settings) -> list[str]:
    """The doors AGENTD_HTTP_DOORS names; unset: a2a when A2A is on, else none."""
    return list(settings.http_doors) or (["a2a"] if settings.a2a else [])


@dataclass
class HttpServing:
    """The HTTP address of one server: its doors, built; listening from `start`."""

    settings: Settings
    doors: list[Door]
    durable: DurableStores
    address: HttpAddress | None = None
    url: str = ""
    """Its base URL once it listens (http://host:port/)."""

    @classmethod
    def build(cls, parts: DoorParts, durable: DurableStores) -> HttpServing | None:
        """The doors switched on, built (StartupError for one this server cannot serve);
        None when no address is set or no door is on."""
        settings = parts.settings
        names = doors_on(settings)
        if not settings.http_address or not names:
            return None
        missing = [name for name in names if name not in DOORS]
        if missing:
            raise StartupError(
                f"AGENTD_HTTP_DOORS names {', '.join(missing)}, which this server does not "
                f"serve (it serves {', '.join(DOORS)})"
            )
        return cls(settings, [DOORS[name](parts) for name in names], durable)

    async def start(self, health: HealthServicer, callers: Callers) -> str:
        """Listen (StartupError when the address cannot be bound); its base URL."""
        from server.http.address import HttpAddress  # uvicorn and starlette, only now

        settings = self.settings
        self.address = HttpAddress(
            settings.http_address,
            self.doors,
            self._checks(callers),
            grace_seconds=settings.grace_period_seconds,
        )
        port = await self.address.start()
        host = settings.http_address.rsplit(":", 1)[0] or "127.0.0.1"
        self.url = f"http://{host}:{port}/"
        await health.set(HEALTH_NAME, health_pb2.HealthCheckResponse.SERVING)
        log.info("HTTP address serving", url=self.url, doors=[door.name for door in self.doors])
        return self.url

    def _checks(self, callers: Callers) -> GuardChecks:
        settings = self.settings
        return GuardChecks(
            callers.authenticator,
            Principal(ANONYMOUS.id, ANONYMOUS.tenant, tuple(settings.anonymous_roles)),
            tuple(role_table(settings).roles(Action.ACT_FOR_END_USERS)),
            callers.per_principal,
            callers.per_tenant,
            self.durable.rpcs,
            settings.http_max_body_bytes or settings.max_message_bytes,
            callers.throttle,
        )

    def serves(self, name: str) -> bool:
        return any(door.name == name for door in self.doors)

    async def stop(self) -> None:
        if self.address is not None:
            await self.address.stop()


@dataclass
class Fronts:
    """What a server serves beside its gRPC services: A2A when it is on, the HTTP address
    when it is served."""

    a2a: A2A | None = None
    http: HttpServing | None = None

    async def start(self, grpc_port: int, health: HealthServicer, callers: Callers) -> None:
        """The HTTP address listening, then A2A SERVING, its cards naming the ports."""
        http = self.http
        served = await http.start(health, callers) if http is not None else ""
        if self.a2a is not None:
            on_http = http is not None and http.serves("a2a")
            await self.a2a.start(grpc_port, health, served if on_http else "")

    async def stop_listening(self) -> None:
        """The HTTP address stopped, its calls in flight let finish (with the gRPC server's
        drain)."""
        if self.http is not None:
            await self.http.stop()

    async def stop(self) -> None:
        """A2A's push deliveries stopped (after the drain: its last events go out)."""
        if self.a2a is not None:
            await self.a2a.stop()
