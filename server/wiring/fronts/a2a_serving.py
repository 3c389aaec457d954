"""A2A's place in the server's lifecycle: the service added to the gRPC server, its door
on the HTTP address (cards, JSON-RPC: `server.a2a.http`), the cards' addresses once the
ports are known, the push notifications delivered while the server runs."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import grpc
import structlog
from grpc_health.v1 import health_pb2
from grpc_health.v1._async import HealthServicer

from agent.definitions.catalog import Agents
from agent.engine import Engine
from server.a2a.card import Addresses
from server.a2a.handler import AgentdRequestHandler
from server.a2a.http import A2ADoor
from server.a2a.push_rpcs import PushRpcs
from server.a2a.service import add_a2a
from server.services.push import PushDeliverer
from server.services.push_configs import PushConfigs
from server.services.tasks import TaskService
from server.settings import Settings
from stores.build import DurableStores
from stores.push_configs.sql import SqlPushConfigStore
from stores.tasks.base import TaskStore
from tools.registry import ToolRegistry

VERSION_HEADER = "A2A-Version: 1.0"
"""What a JSON-RPC request must send: without it the SDK takes it for A2A 0.3 and refuses
it (-32009, "A2A version '0.3' is not supported")."""

log = structlog.get_logger(__name__)


@dataclass
class A2AServing:
    """A2A on one agentd server."""

    settings: Settings
    service_name: str
    handler: AgentdRequestHandler
    deliverer: PushDeliverer
    delivering: asyncio.Task[None] | None = None

    @classmethod
    def add(
        cls,
        server: grpc.aio.Server,
        settings: Settings,
        engine: Engine,
        service: TaskService,
        tasks: TaskStore,
        registry: ToolRegistry,
        agents: Agents,
        durable: DurableStores,
    ) -> A2AServing:
        ring = settings.key_ring()
        configs = SqlPushConfigStore(durable.database, ring)
        allowed = settings.allowed_networks()
        name, handler = add_a2a(
            server,
            engine,
            service,
            registry,
            agents,
            Addresses(settings.a2a_public_grpc_url),
            PushRpcs(PushConfigs(engine, configs, allowed, ring)),
            auth=settings.auth == "on",
            organization=settings.a2a_organization,
        )
        deliverer = PushDeliverer(
            configs,
            tasks,
            engine.replica,
            allowed,
            lease_seconds=settings.a2a_push_lease_seconds,
            retry_cap_seconds=settings.a2a_push_retry_cap_seconds,
            audit=durable.rpcs,
        )
        return cls(settings, name, handler, deliverer)

    def door(self) -> A2ADoor:
        """A2A's door on the HTTP address: the cards and the JSON-RPC binding."""
        return A2ADoor(self.handler, auth=self.settings.auth == "on")

    async def start(self, grpc_port: int, health: HealthServicer, served: str = "") -> None:
        """Name the listening ports on the cards (unless public addresses are set: the
        HTTP address's URL `served` when its A2A door is on), and report the service
        SERVING."""
        settings = self.settings
        host = settings.address.rsplit(":", 1)[0]
        grpc_url = settings.a2a_public_grpc_url or f"{host}:{grpc_port}"
        jsonrpc = (settings.a2a_public_http_url or served) if served else ""
        self.handler.cards.addresses = Addresses(grpc_url, jsonrpc)
        self.delivering = asyncio.create_task(self.deliverer.run(), name="agentd-a2a-push")
        await health.set(self.service_name, health_pb2.HealthCheckResponse.SERVING)
        _announce(f"{host}:{grpc_port}", served)

    async def stop(self) -> None:
        if self.delivering is not None:  # its claims are given back: another replica goes on
            self.delivering.cancel()
            await asyncio.gather(self.delivering, return_exceptions=True)


def _announce(grpc_address: str, http: str) -> None:
    """One line: what A2A serves and where (docs/a2a.md, "Trying it with curl")."""
    where: dict[str, str] = {"grpc": f"{grpc_address} (lf.a2a.v1.A2AService)"}
    if http:
        where["agent_card"] = f"{http}.well-known/agent-card.json"
        where["json_rpc"] = f"{http} (send the header {VERSION_HEADER})"
    else:
        where["http"] = (
            "off: set AGENTD_HTTP_ADDRESS (formerly AGENTD_A2A_HTTP_ADDRESS) for JSON-RPC "
            "and the agent cards"
        )
    log.info("A2A is on", **where)
