"""webhooks, webhook_events (the outbox), webhook_deliveries and webhook_streams

A tenant's webhooks are listed oldest first (`ix_webhooks_tenant_created`). The outbox
keeps each event once, its `position` growing in the order events are written; a
delivery is one event due to one webhook, read by stream (webhook and task, pending, in
position order: `ix_webhook_deliveries_stream`), given up by age
(`ix_webhook_deliveries_due`) and swept as a dead letter by when it died
(`ix_webhook_deliveries_dead`). A stream row holds its claim, its retry time and its
cursor.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-09 09:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    _endpoints()
    _outbox()


def _endpoints() -> None:
    op.create_table(
        "webhooks",
        sa.Column("webhook_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("event_types", sa.Text(), nullable=False),
        sa.Column("agents", sa.Text(), nullable=False),
        sa.Column("labels", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_failed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("failing_attempts", sa.Integer(), nullable=False),
    )
    op.create_index(
        "ix_webhooks_tenant_created", "webhooks", ["tenant", "created_at", "webhook_id"]
    )


def _outbox() -> None:
    op.create_table(
        "webhook_events",
        sa.Column("position", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.String(length=64), nullable=False, unique=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("task_id", sa.String(length=64), nullable=False),
        sa.Column("event_type", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
    )
    op.create_index("ix_webhook_events_created", "webhook_events", ["created_at"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("webhook_id", sa.String(length=64), primary_key=True),
        sa.Column("event_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("task_id", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("dead_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index(
        "ix_webhook_deliveries_stream", "webhook_deliveries", ["webhook_id", "task_id", "state"]
    )
    op.create_index("ix_webhook_deliveries_due", "webhook_deliveries", ["state", "queued_at"])
    op.create_index("ix_webhook_deliveries_dead", "webhook_deliveries", ["state", "dead_at"])
    op.create_table(
        "webhook_streams",
        sa.Column("webhook_id", sa.String(length=64), primary_key=True),
        sa.Column("task_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("claimed_by", sa.String(length=128), nullable=False),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("retry_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("delivered_through", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_webhook_streams_updated", "webhook_streams", ["updated_at"])


def downgrade() -> None:
    op.drop_index("ix_webhook_streams_updated", table_name="webhook_streams")
    op.drop_table("webhook_streams")
    for index in (
        "ix_webhook_deliveries_dead",
        "ix_webhook_deliveries_due",
        "ix_webhook_deliveries_stream",
    ):
        op.drop_index(index, table_name="webhook_deliveries")
    op.drop_table("webhook_deliveries")
    op.drop_index("ix_webhook_events_created", table_name="webhook_events")
    op.drop_table("webhook_events")
    op.drop_index("ix_webhooks_tenant_created", table_name="webhooks")
    op.drop_table("webhooks")
