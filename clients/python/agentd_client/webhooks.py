"""The webhook methods of `AgentClient` (a mixin: the client supplies the channel and the
error mapping). Webhooks need the webhook admin role (admin); a webhook's secret is
answered only by `create_webhook` and `rotate_webhook_secret`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import webhooks_pb2


def _webhook(
    url: str,
    event_types: Sequence[str],
    agents: Sequence[str],
    labels: Mapping[str, str] | None,
    description: str,
    paused: bool,
    webhook_id: str = "",
) -> webhooks_pb2.Webhook:
    return webhooks_pb2.Webhook(
        webhook_id=webhook_id,
        url=url,
        event_types=list(event_types),
        agents=list(agents),
        labels=dict(labels or {}),
        description=description,
        paused=paused,
    )


class WebhookMethods:
    _stub: pb_grpc.AgentServiceStub

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    async def create_webhook(
        self,
        url: str,
        *,
        event_types: Sequence[str] = (),
        agents: Sequence[str] = (),
        labels: Mapping[str, str] | None = None,
        description: str = "",
        paused: bool = False,
        secret: str = "",
        timeout: float | None = None,
    ) -> webhooks_pb2.Webhook:
        """A webhook of your tenant, sent the events of `event_types` (empty: all) of tasks
        run as `agents` (empty: any) carrying all of `labels`; the answer holds its signing
        secret (yours, `whsec_...`, or one made for it), shown only now."""
        webhook = _webhook(url, event_types, agents, labels, description, paused)
        request = webhooks_pb2.CreateWebhookRequest(webhook=webhook, secret=secret)
        made: webhooks_pb2.Webhook = await self._unary(self._stub.CreateWebhook, request, timeout)
        return made

    async def get_webhook(
        self, webhook_id: str, *, timeout: float | None = None
    ) -> webhooks_pb2.Webhook:
        request = webhooks_pb2.GetWebhookRequest(webhook_id=webhook_id)
        found: webhooks_pb2.Webhook = await self._unary(self._stub.GetWebhook, request, timeout)
        return found

    async def list_webhooks(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> webhooks_pb2.ListWebhooksResponse:
        request = webhooks_pb2.ListWebhooksRequest(page_size=page_size, page_token=page_token)
        page: webhooks_pb2.ListWebhooksResponse = await self._unary(
            self._stub.ListWebhooks, request, timeout
        )
        return page

    async def update_webhook(
        self,
        webhook_id: str,
        url: str,
        *,
        event_types: Sequence[str] = (),
        agents: Sequence[str] = (),
        labels: Mapping[str, str] | None = None,
        description: str = "",
        paused: bool = False,
        timeout: float | None = None,
    ) -> webhooks_pb2.Webhook:
        """Replace the webhook's url, filters, description and pause."""
        webhook = _webhook(url, event_types, agents, labels, description, paused, webhook_id)
        request = webhooks_pb2.UpdateWebhookRequest(webhook=webhook)
        changed: webhooks_pb2.Webhook = await self._unary(
            self._stub.UpdateWebhook, request, timeout
        )
        return changed

    async def delete_webhook(self, webhook_id: str, *, timeout: float | None = None) -> None:
        request = webhooks_pb2.DeleteWebhookRequest(webhook_id=webhook_id)
        await self._unary(self._stub.DeleteWebhook, request, timeout)

    async def rotate_webhook_secret(
        self, webhook_id: str, *, secret: str = "", timeout: float | None = None
    ) -> webhooks_pb2.Webhook:
        """A new signing secret (yours, or one made), answered once."""
        request = webhooks_pb2.RotateWebhookSecretRequest(webhook_id=webhook_id, secret=secret)
        rotated: webhooks_pb2.Webhook = await self._unary(
            self._stub.RotateWebhookSecret, request, timeout
        )
        return rotated

    async def list_webhook_dead_letters(
        self,
        webhook_id: str,
        *,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> webhooks_pb2.ListWebhookDeadLettersResponse:
        request = webhooks_pb2.ListWebhookDeadLettersRequest(
            webhook_id=webhook_id, page_size=page_size, page_token=page_token
        )
        page: webhooks_pb2.ListWebhookDeadLettersResponse = await self._unary(
            self._stub.ListWebhookDeadLetters, request, timeout
        )
        return page

    async def redeliver_webhook_events(
        self, webhook_id: str, event_ids: Sequence[str] = (), *, timeout: float | None = None
    ) -> int:
        """Queue dead letters again (those of `event_ids`, or all); how many."""
        request = webhooks_pb2.RedeliverWebhookEventsRequest(
            webhook_id=webhook_id, event_ids=list(event_ids)
        )
        response: webhooks_pb2.RedeliverWebhookEventsResponse = await self._unary(
            self._stub.RedeliverWebhookEvents, request, timeout
        )
        return response.queued
