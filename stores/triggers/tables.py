"""The tables of inbound triggers (migration 0032), on the schema's one `metadata`
(`stores.sql.schema` imports this module, so they are part of it wherever it is read)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, DateTime, Float, Index, Integer, String, Table, Text

from stores.sql.metadata import metadata

triggers = Table(
    "triggers",
    metadata,
    Column("trigger_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("principal", String(256), nullable=False),
    Column("roles", Text, nullable=False),
    Column("display_name", Text, nullable=False),
    Column("agent", String(256), nullable=False),
    Column("goal", Text, nullable=False),
    Column("context", Text, nullable=False),
    Column("token_budget", Integer, nullable=False),
    Column("spend_limit", BigInteger, nullable=False, server_default="0"),
    Column("timeout_seconds", Float, nullable=False),
    Column("labels", Text, nullable=False),
    Column("secret", Text, nullable=False),
    Column("previous_secret", Text, nullable=False),
    Column("previous_until", DateTime(timezone=True), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_delivery_at", DateTime(timezone=True), nullable=True),
    Column("deliveries", Integer, nullable=False),
    Column("refused", Integer, nullable=False),
    Index("ix_triggers_tenant_created", "tenant", "created_at", "trigger_id"),
)
"""A tenant's triggers: what each delivery starts (context, roles and labels as JSON
text), the secrets sealed (`core.keyring`), and the counters."""

trigger_deliveries = Table(
    "trigger_deliveries",
    metadata,
    Column("trigger_id", String(64), primary_key=True),
    Column("webhook_id", String(256), primary_key=True),
    Column("task_id", String(64), nullable=False),
    Column("delivered_at", DateTime(timezone=True), nullable=False),
    Index("ix_trigger_deliveries_delivered", "delivered_at"),
)
"""The task each `(trigger, webhook-id)` started: a delivery sent again answers it. Kept
AGENTD_TRIGGER_DELIVERY_RETENTION_SECONDS, then swept (oldest first, by the index)."""
