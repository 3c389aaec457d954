"""model_calls (the usage ledger: one row per model call) and budgets

The ledger is read by tenant and time (`ix_model_calls_tenant_at`), by end user
(`ix_model_calls_tenant_user_at`), by task, and swept by time (`ix_model_calls_at`).
A budget is unique per tenant, scope, subject, unit and window.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-07 15:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "model_calls",
        sa.Column("call_id", sa.String(length=64), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("task_id", sa.String(length=64), nullable=False),
        sa.Column("root_task_id", sa.String(length=64), nullable=False),
        sa.Column("end_user", sa.String(length=256), nullable=False),
        sa.Column("agent", sa.String(length=64), nullable=False),
        sa.Column("agent_version", sa.Integer(), nullable=False),
        sa.Column("agent_path", sa.String(length=1024), nullable=False),
        sa.Column("provider", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=256), nullable=False),
        sa.Column("role", sa.String(length=32), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("prompt_tokens", sa.BigInteger(), nullable=False),
        sa.Column("cached_prompt_tokens", sa.BigInteger(), nullable=False),
        sa.Column("completion_tokens", sa.BigInteger(), nullable=False),
        sa.Column("reasoning_tokens", sa.BigInteger(), nullable=False),
        sa.Column("cost_micros", sa.BigInteger(), nullable=False),
        sa.Column("priced", sa.Boolean(), nullable=False),
        sa.Column("latency_ms", sa.Integer(), nullable=False),
        sa.Column("estimated", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_model_calls_tenant_at", "model_calls", ["tenant", "at"])
    op.create_index("ix_model_calls_tenant_user_at", "model_calls", ["tenant", "end_user", "at"])
    op.create_index("ix_model_calls_task", "model_calls", ["task_id"])
    op.create_index("ix_model_calls_at", "model_calls", ["at"])
    op.create_table(
        "budgets",
        sa.Column("budget_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("scope", sa.String(length=16), nullable=False),
        sa.Column("subject", sa.String(length=256), nullable=False),
        sa.Column("unit", sa.String(length=16), nullable=False),
        sa.Column("window", sa.String(length=16), nullable=False),
        sa.Column("limit_amount", sa.BigInteger(), nullable=False),
        sa.Column("soft_limit", sa.BigInteger(), nullable=False),
        sa.Column("created_by", sa.String(length=256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("tenant", "scope", "subject", "unit", "window", name="uq_budgets_kind"),
    )
    op.create_index("ix_budgets_tenant_id", "budgets", ["tenant", "budget_id"])


def downgrade() -> None:
    op.drop_index("ix_budgets_tenant_id", table_name="budgets")
    op.drop_table("budgets")
    for index in ("ix_model_calls_at", "ix_model_calls_task", "ix_model_calls_tenant_user_at"):
        op.drop_index(index, table_name="model_calls")
    op.drop_index("ix_model_calls_tenant_at", table_name="model_calls")
    op.drop_table("model_calls")
