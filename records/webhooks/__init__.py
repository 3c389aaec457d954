"""Webhooks: a tenant's endpoints sent its task and inbox events, and the outbox they are
delivered from (kept by `stores.webhooks`).

An event happens once (a task's status change, a step of a wait for a person) and is
written once to the outbox (`OutboxEvent`: its payload), with one delivery per webhook of
the tenant it matches (`Webhook.matches`). The deliveries of one webhook and one task are
a stream (`Stream`), delivered in the outbox's order (`OutboxEvent.position`) by one
replica at a time; a delivery not made within the retention becomes a dead letter
(`DeadLetter`) until it is redelivered or that retention passes again.
"""

from records.webhooks.endpoints import (
    SECRET_PURPOSE,
    Webhook,
    WebhookHealth,
    new_webhook_id,
    secret_binding,
)
from records.webhooks.outbox import (
    EVENT_TYPES,
    DeadLetter,
    Delivery,
    DeliveryState,
    EventType,
    OutboxEvent,
    Stream,
    event_id_of,
)

__all__ = [
    "EVENT_TYPES",
    "SECRET_PURPOSE",
    "DeadLetter",
    "Delivery",
    "DeliveryState",
    "EventType",
    "OutboxEvent",
    "Stream",
    "Webhook",
    "WebhookHealth",
    "event_id_of",
    "new_webhook_id",
    "secret_binding",
]
