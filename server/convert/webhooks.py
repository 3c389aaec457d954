"""Conversion of webhooks, their health and dead letters between protobuf and
`records.webhooks`."""

from __future__ import annotations

from agentd.v1 import webhooks_pb2
from records.webhooks import DeadLetter, Webhook, WebhookHealth
from server.convert.tasks import to_timestamp


def webhook_from_proto(message: webhooks_pb2.Webhook) -> Webhook:
    """What a request says of a webhook (what the server assigns left empty)."""
    return Webhook(
        webhook_id=message.webhook_id,
        tenant="",
        url=message.url,
        event_types=tuple(message.event_types),
        agents=tuple(message.agents),
        labels=dict(message.labels),
        description=message.description,
        paused=message.paused,
    )


def health_to_proto(health: WebhookHealth) -> webhooks_pb2.WebhookHealth:
    message = webhooks_pb2.WebhookHealth(
        pending=health.pending,
        dead_letters=health.dead_letters,
        last_error=health.last_error,
        failing_attempts=health.failing_attempts,
    )
    if health.last_delivered_at is not None:
        message.last_delivered_at.CopyFrom(to_timestamp(health.last_delivered_at))
    if health.last_failed_at is not None:
        message.last_failed_at.CopyFrom(to_timestamp(health.last_failed_at))
    return message


def webhook_to_proto(webhook: Webhook, secret: str = "") -> webhooks_pb2.Webhook:
    """The webhook as answered: its secret only when given (create, rotate), never the
    sealed one."""
    message = webhooks_pb2.Webhook(
        webhook_id=webhook.webhook_id,
        url=webhook.url,
        event_types=list(webhook.event_types),
        agents=list(webhook.agents),
        labels=dict(webhook.labels),
        description=webhook.description,
        paused=webhook.paused,
        created_by=webhook.created_by,
        secret=secret,
        health=health_to_proto(webhook.health),
    )
    if webhook.created_at is not None:
        message.created_at.CopyFrom(to_timestamp(webhook.created_at))
    return message


def dead_letter_to_proto(dead: DeadLetter) -> webhooks_pb2.WebhookDeadLetter:
    return webhooks_pb2.WebhookDeadLetter(
        event_id=dead.event_id,
        event_type=dead.event_type,
        task_id=dead.task_id,
        created_at=to_timestamp(dead.created_at),
        dead_at=to_timestamp(dead.dead_at),
        attempts=dead.attempts,
        last_error=dead.last_error,
    )
