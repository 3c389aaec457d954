"""The webhooks' outbox: each event once (`OutboxEvent`), due to the webhooks it matches
(`Delivery`), delivered by stream (`Stream`: one webhook, one task), given up as a dead
letter (`DeadLetter`) past the retention."""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any


class EventType(enum.Enum):
    """What a webhook is sent."""

    TASK_STARTED = "task.started"
    TASK_WAITING = "task.waiting"
    """The task waits for a person (INPUT_REQUIRED)."""
    TASK_COMPLETED = "task.completed"
    TASK_FAILED = "task.failed"
    TASK_CANCELLED = "task.cancelled"
    INBOX_NEW = "inbox.new"
    INBOX_REMINDED = "inbox.reminded"
    INBOX_ESCALATED = "inbox.escalated"
    INBOX_EXPIRED = "inbox.expired"


EVENT_TYPES = frozenset(t.value for t in EventType)


def event_id_of(*parts: str) -> str:
    """A deterministic event id (`webhook-id`): the same parts, the same id, so a change
    repeated after a takeover writes no second event."""
    digest = hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]
    return f"evt_{digest}"


@dataclass(frozen=True, slots=True)
class OutboxEvent:
    """An event as the outbox keeps it, once for every webhook it goes to."""

    event_id: str
    tenant: str
    task_id: str
    event_type: str
    created_at: datetime
    data: Mapping[str, Any]
    """The body's `data` (JSON-ready), less its `sequence` (the position)."""
    position: int = 0
    """Its place in the outbox (assigned when written): increasing in each task's order."""


@dataclass(frozen=True, slots=True)
class Stream:
    """The deliveries of one webhook for one task: delivered in order, by one holder."""

    tenant: str
    webhook_id: str
    task_id: str


@dataclass(frozen=True, slots=True)
class Delivery:
    """One event due to one webhook."""

    event: OutboxEvent
    webhook_id: str
    queued_at: datetime
    """When it was queued (the event's time, or its redelivery's): its retention counts
    from here."""
    attempts: int = 0


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """An event not delivered to a webhook within its retention."""

    event_id: str
    event_type: str
    task_id: str
    created_at: datetime
    dead_at: datetime
    attempts: int
    last_error: str
    position: int
    """The event's place in the outbox (dead letters are listed by it)."""


class DeliveryState(enum.Enum):
    PENDING = "pending"
    DEAD = "dead"
