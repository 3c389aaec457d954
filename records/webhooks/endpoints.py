"""A tenant's webhook: where its events are POSTed, which it is sent, its sealed signing
secret, and how its deliveries go."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

SECRET_PURPOSE = "webhook-secret"
"""The key ring's purpose a webhook's signing secret is sealed for (`core.keyring`)."""


def secret_binding(tenant: str, webhook_id: str) -> bytes:
    """What a webhook's sealed secret is bound to: its row (copied to another, it does
    not open)."""
    return f"{tenant}\x00{webhook_id}".encode()


def new_webhook_id() -> str:
    return "wh_" + secrets.token_hex(10)


@dataclass(frozen=True, slots=True)
class WebhookHealth:
    """How a webhook's deliveries go."""

    pending: int = 0
    dead_letters: int = 0
    last_delivered_at: datetime | None = None
    last_failed_at: datetime | None = None
    last_error: str = ""
    failing_attempts: int = 0
    """Attempts failed in a row (0 after a delivery)."""


@dataclass(frozen=True, slots=True)
class Webhook:
    """One endpoint of one tenant."""

    webhook_id: str
    tenant: str
    url: str
    event_types: tuple[str, ...] = ()
    """Only these types; empty: every type."""
    agents: tuple[str, ...] = ()
    """Only tasks run as these agents (ids, any version); empty: any."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """Only tasks carrying all of these labels; empty: any."""
    description: str = ""
    paused: bool = False
    """Events queue (up to their retention) but are not delivered."""
    created_by: str = ""
    created_at: datetime | None = None
    secret: str = field(default="", repr=False)
    """As stored: sealed (`SECRET_PURPOSE`, bound to `secret_binding`)."""
    health: WebhookHealth = field(default_factory=WebhookHealth)

    def matches(self, event_type: str, agent: str, labels: Mapping[str, str]) -> bool:
        """Whether an event of `event_type` of a task run as `agent` (`id@version`, or
        "" for the default agent) carrying `labels` is sent here."""
        if self.event_types and event_type not in self.event_types:
            return False
        if self.agents and agent.split("@", 1)[0] not in self.agents:
            return False
        return all(labels.get(key) == value for key, value in self.labels.items())
