"""triggers, trigger_deliveries: inbound triggers and the task each delivery started

A trigger keeps what each delivery starts, its creator's principal, its signing secret
(and the one before the last rotation, until its ttl) sealed with the key ring, and its
counters; a delivery is kept once per `(trigger_id, webhook_id)`, so a delivery sent
again (or to two replicas at once) answers the task it started; the retention sweep
deletes deliveries by `delivered_at` (its index) once they can no longer be replayed.

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-08 01:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "triggers",
        sa.Column("trigger_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("principal", sa.String(length=256), nullable=False),
        sa.Column("roles", sa.Text(), nullable=False),
        sa.Column("display_name", sa.Text(), nullable=False),
        sa.Column("agent", sa.String(length=256), nullable=False),
        sa.Column("goal", sa.Text(), nullable=False),
        sa.Column("context", sa.Text(), nullable=False),
        sa.Column("token_budget", sa.Integer(), nullable=False),
        sa.Column("timeout_seconds", sa.Float(), nullable=False),
        sa.Column("spend_limit", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("labels", sa.Text(), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("previous_secret", sa.Text(), nullable=False),
        sa.Column("previous_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_delivery_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deliveries", sa.Integer(), nullable=False),
        sa.Column("refused", sa.Integer(), nullable=False),
    )
    op.create_index(
        "ix_triggers_tenant_created", "triggers", ["tenant", "created_at", "trigger_id"]
    )
    op.create_table(
        "trigger_deliveries",
        sa.Column("trigger_id", sa.String(length=64), primary_key=True),
        sa.Column("webhook_id", sa.String(length=256), primary_key=True),
        sa.Column("task_id", sa.String(length=64), nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_trigger_deliveries_delivered", "trigger_deliveries", ["delivered_at"])


def downgrade() -> None:
    op.drop_index("ix_trigger_deliveries_delivered", table_name="trigger_deliveries")
    op.drop_table("trigger_deliveries")
    op.drop_index("ix_triggers_tenant_created", table_name="triggers")
    op.drop_table("triggers")
