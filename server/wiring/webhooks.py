"""Webhooks' place in the server: the outbox writer the engine tells of status changes and
waits' steps, the service the RPCs call, and the deliverer started and stopped with the
server (every replica runs one)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from core.errors import TaskNotFoundError
from records.tasks import Task
from server.services.webhook_delivery import WebhookDeliverer
from server.services.webhook_outbox import WebhookOutboxWriter
from server.services.webhooks import WebhookService
from server.settings import Settings
from server.wiring.role_table import role_table
from stores.audit.base import RpcAuditSink
from stores.build import DurableStores
from stores.tasks.base import TaskStore


@dataclass
class Webhooks:
    """Webhooks on one server."""

    settings: Settings
    durable: DurableStores
    writer: WebhookOutboxWriter
    service: WebhookService
    deliverer: WebhookDeliverer | None = None

    @classmethod
    def build(cls, settings: Settings, durable: DurableStores, tasks: TaskStore) -> Webhooks:
        """The writer and the service (the deliverer comes with `start`)."""

        async def find(tenant: str, task_id: str) -> Task | None:
            try:
                return await tasks.get(tenant, task_id)
            except TaskNotFoundError:
                return None

        stores = durable.webhooks
        writer = WebhookOutboxWriter(
            stores.store, stores.outbox, find, settings.webhook_refresh_seconds
        )
        service = WebhookService(
            stores.store,
            settings.key_ring(),
            role_table(settings),
            settings.allowed_networks(),
            writer,
        )
        return cls(settings, durable, writer, service)

    def start(self, replica: str, audit: RpcAuditSink | None = None) -> asyncio.Task[None]:
        """Deliver from now on (as `replica`): the job, which gives its claims back when it
        is cancelled (another replica goes on)."""
        settings, stores = self.settings, self.durable.webhooks
        self.deliverer = WebhookDeliverer(
            stores.store,
            stores.outbox,
            settings.key_ring(),
            replica,
            settings.allowed_networks(),
            retention_seconds=settings.webhook_retention_seconds,
            lease_seconds=settings.webhook_lease_seconds,
            timeout_seconds=settings.webhook_timeout_seconds,
            retry_base_seconds=settings.webhook_retry_base_seconds,
            retry_cap_seconds=settings.webhook_retry_cap_seconds,
            sweep_seconds=settings.webhook_sweep_seconds,
            audit=audit,
        )
        self.writer.wrote = self.deliverer.nudge  # an event written here: claimed at once
        return asyncio.create_task(self.deliverer.run(), name="agentd-webhooks")
