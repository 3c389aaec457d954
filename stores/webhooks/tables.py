"""The tables of the webhooks (migration 0027), on the schema's one `metadata`
(`stores.sql.schema` imports this module, so they are part of it wherever it is read)."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, Index, Integer, String, Table, Text

from stores.sql.metadata import metadata

webhooks = Table(
    "webhooks",
    metadata,
    Column("webhook_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("url", Text, nullable=False),
    Column("event_types", Text, nullable=False),
    Column("agents", Text, nullable=False),
    Column("labels", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("paused", Boolean, nullable=False),
    Column("secret", Text, nullable=False),
    Column("created_by", String(256), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_delivered_at", DateTime(timezone=True), nullable=True),
    Column("last_failed_at", DateTime(timezone=True), nullable=True),
    Column("last_error", Text, nullable=False),
    Column("failing_attempts", Integer, nullable=False),
    Index("ix_webhooks_tenant_created", "tenant", "created_at", "webhook_id"),
)
"""A tenant's endpoints: filters as JSON text, the secret sealed (`core.keyring`), and
how its deliveries go (the health columns)."""

webhook_events = Table(
    "webhook_events",
    metadata,
    Column("position", Integer, primary_key=True, autoincrement=True),
    Column("event_id", String(64), nullable=False, unique=True),
    Column("tenant", String(128), nullable=False),
    Column("task_id", String(64), nullable=False),
    Column("event_type", String(32), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("data", Text, nullable=False),
    Index("ix_webhook_events_created", "created_at"),
)
"""The outbox: one row per event, its payload once, whatever the webhooks it goes to;
`position` orders a task's events."""

webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("webhook_id", String(64), primary_key=True),
    Column("event_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("task_id", String(64), nullable=False),
    Column("state", String(16), nullable=False),
    Column("queued_at", DateTime(timezone=True), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("last_error", Text, nullable=False),
    Column("dead_at", DateTime(timezone=True), nullable=True),
    Index("ix_webhook_deliveries_stream", "webhook_id", "task_id", "state"),
    Index("ix_webhook_deliveries_due", "state", "queued_at"),
    Index("ix_webhook_deliveries_dead", "state", "dead_at"),
)
"""An event due to a webhook: pending (until delivered: then deleted) or dead (a dead
letter, past the retention)."""

webhook_streams = Table(
    "webhook_streams",
    metadata,
    Column("webhook_id", String(64), primary_key=True),
    Column("task_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("claimed_by", String(128), nullable=False),
    Column("claimed_until", DateTime(timezone=True), nullable=True),
    Column("retry_at", DateTime(timezone=True), nullable=True),
    Column("delivered_through", Integer, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Index("ix_webhook_streams_updated", "updated_at"),
)
"""The deliveries of one webhook for one task: who holds them until when, when to try
again, and the position of the last delivered (the cursor)."""
