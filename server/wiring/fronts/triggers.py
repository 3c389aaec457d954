"""Inbound triggers on one server: the service TriggerService's RPCs call, and the
deliveries the `triggers` door of the HTTP address serves, on the durable database."""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from agent.engine import Engine
from agentd.v1 import schedules_pb2_grpc
from server.rpcs.triggers.servicer import TriggerServicer
from server.services.scheduled.standing import Resolve, Standing
from server.services.triggers.deliveries import TriggerDeliveries
from server.services.triggers.manage import TriggerService
from server.settings import Settings
from server.wiring.role_table import role_table
from stores.build import DurableStores
from stores.triggers.sql import SqlTriggerStore


@dataclass(frozen=True, slots=True)
class Triggers:
    service: TriggerService
    deliveries: TriggerDeliveries

    @classmethod
    def build(
        cls,
        settings: Settings,
        engine: Engine,
        durable: DurableStores,
        standing: Resolve | None = None,
    ) -> Triggers:
        store = SqlTriggerStore(durable.database)
        ring = settings.key_ring()
        limit = settings.http_max_body_bytes or settings.max_message_bytes
        deliveries = TriggerDeliveries(
            store,
            ring,
            engine.start,
            standing or Standing.of(settings.auth, durable.api_keys),
            tolerance_seconds=settings.trigger_tolerance_seconds,
            max_body_bytes=min(settings.trigger_max_body_bytes, limit),
        )
        return cls(TriggerService(store, ring, role_table(settings)), deliveries)

    def registered(self, server: grpc.aio.Server) -> Triggers:
        """These, TriggerService's servicer registered on `server`."""
        servicer = TriggerServicer(self.service)
        schedules_pb2_grpc.add_TriggerServiceServicer_to_server(servicer, server)
        return self
