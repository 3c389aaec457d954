"""A tenant's inbound trigger: what each signed delivery to `/v1/triggers/<id>` starts,
the principal it starts it as, its sealed signing secret(s), and its counters."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

SECRET_PURPOSE = "trigger-secret"
"""The key ring's purpose a trigger's signing secret is sealed for (`core.keyring`)."""

LABEL = "agentd.trigger"
"""The label every delivery's task carries: the trigger's id."""


def secret_binding(tenant: str, trigger_id: str) -> bytes:
    """What a trigger's sealed secrets are bound to: its row (copied to another, they do
    not open)."""
    return f"{tenant}\x00{trigger_id}".encode()


def new_trigger_id() -> str:
    return "trg_" + secrets.token_hex(10)


def delivery_key(trigger_id: str, webhook_id: str) -> str:
    """The idempotency key of the task a delivery starts: one per `(trigger, webhook-id)`,
    so a delivery sent again, or to two replicas at once, starts one task."""
    return f"trigger:{trigger_id}:{webhook_id}"


@dataclass(frozen=True, slots=True)
class Trigger:
    """One trigger of one tenant."""

    trigger_id: str
    tenant: str
    principal: str
    """The creator's principal id: each delivery's task runs as it (re-resolved)."""
    roles: tuple[str, ...] = ()
    """The creator's roles when it was made."""
    display_name: str = ""
    agent: str = ""
    goal: str = ""
    context: Mapping[str, Any] = field(default_factory=dict)
    token_budget: int = 0
    spend_limit: int = 0
    """What each delivery's task may spend on model calls, in micro-units of the server's
    currency (its `spend_limit`); 0: no limit of its own."""
    timeout_seconds: float = 0.0
    labels: Mapping[str, str] = field(default_factory=dict)
    secret: str = field(default="", repr=False)
    """As stored: sealed (`SECRET_PURPOSE`, bound to `secret_binding`)."""
    previous_secret: str = field(default="", repr=False)
    """The secret before the last rotation, sealed; "" when none."""
    previous_until: datetime | None = None
    """Until when `previous_secret` still verifies."""
    created_at: datetime | None = None
    last_delivery_at: datetime | None = None
    deliveries: int = 0
    """Deliveries that started a task."""
    refused: int = 0
    """Deliveries refused (signature, window, principal)."""
