"""Webhooks of the caller's tenant: endpoints, their secrets, dead letters, redelivery."""

from __future__ import annotations

from typing import ClassVar

from agentd.v1 import webhooks_pb2
from core.identity import CallContext
from server.calls import unary
from server.convert import pages
from server.convert import webhooks as convert
from server.rpcs.common import required_id
from server.services.webhooks import WebhookService


class WebhookRpcs:
    RPCS: ClassVar[tuple[str, ...]] = (
        "CreateWebhook",
        "GetWebhook",
        "ListWebhooks",
        "UpdateWebhook",
        "DeleteWebhook",
        "RotateWebhookSecret",
        "ListWebhookDeadLetters",
        "RedeliverWebhookEvents",
    )

    def __init__(self, webhooks: WebhookService) -> None:
        self._webhooks = webhooks

    @unary
    async def CreateWebhook(  # noqa: N802 - gRPC method name
        self, request: webhooks_pb2.CreateWebhookRequest, call: CallContext
    ) -> webhooks_pb2.Webhook:
        draft = convert.webhook_from_proto(request.webhook)
        webhook, secret = await self._webhooks.create(call.principal, draft, request.secret)
        return convert.webhook_to_proto(webhook, secret)

    @unary
    async def GetWebhook(  # noqa: N802
        self, request: webhooks_pb2.GetWebhookRequest, call: CallContext
    ) -> webhooks_pb2.Webhook:
        webhook_id = required_id(request.webhook_id, "webhook_id")
        return convert.webhook_to_proto(await self._webhooks.get(call.principal, webhook_id))

    @unary
    async def ListWebhooks(  # noqa: N802
        self, request: webhooks_pb2.ListWebhooksRequest, call: CallContext
    ) -> webhooks_pb2.ListWebhooksResponse:
        size = pages.page_size(request.page_size)
        after = pages.time_key_cursor(request.page_token)
        page = await self._webhooks.list(call.principal, size, after)
        return webhooks_pb2.ListWebhooksResponse(
            webhooks=[convert.webhook_to_proto(w) for w in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def UpdateWebhook(  # noqa: N802
        self, request: webhooks_pb2.UpdateWebhookRequest, call: CallContext
    ) -> webhooks_pb2.Webhook:
        required_id(request.webhook.webhook_id, "webhook.webhook_id")
        draft = convert.webhook_from_proto(request.webhook)
        return convert.webhook_to_proto(await self._webhooks.update(call.principal, draft))

    @unary
    async def DeleteWebhook(  # noqa: N802
        self, request: webhooks_pb2.DeleteWebhookRequest, call: CallContext
    ) -> webhooks_pb2.DeleteWebhookResponse:
        webhook_id = required_id(request.webhook_id, "webhook_id")
        await self._webhooks.delete(call.principal, webhook_id)
        return webhooks_pb2.DeleteWebhookResponse()

    @unary
    async def RotateWebhookSecret(  # noqa: N802
        self, request: webhooks_pb2.RotateWebhookSecretRequest, call: CallContext
    ) -> webhooks_pb2.Webhook:
        webhook_id = required_id(request.webhook_id, "webhook_id")
        webhook, secret = await self._webhooks.rotate(call.principal, webhook_id, request.secret)
        return convert.webhook_to_proto(webhook, secret)

    @unary
    async def ListWebhookDeadLetters(  # noqa: N802
        self, request: webhooks_pb2.ListWebhookDeadLettersRequest, call: CallContext
    ) -> webhooks_pb2.ListWebhookDeadLettersResponse:
        webhook_id = required_id(request.webhook_id, "webhook_id")
        size = pages.page_size(request.page_size)
        after = pages.position_cursor(request.page_token)
        page = await self._webhooks.dead_letters(call.principal, webhook_id, size, after)
        return webhooks_pb2.ListWebhookDeadLettersResponse(
            dead_letters=[convert.dead_letter_to_proto(d) for d in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def RedeliverWebhookEvents(  # noqa: N802
        self, request: webhooks_pb2.RedeliverWebhookEventsRequest, call: CallContext
    ) -> webhooks_pb2.RedeliverWebhookEventsResponse:
        webhook_id = required_id(request.webhook_id, "webhook_id")
        event_ids = list(request.event_ids)
        queued = await self._webhooks.redeliver(call.principal, webhook_id, event_ids)
        return webhooks_pb2.RedeliverWebhookEventsResponse(queued=queued)
