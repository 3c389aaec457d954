"""guardrail_audit: one row per guardrail decision (block, redact, record)

Which check and rule decided, at which point of which task, what was done and why, and
the SHA-256 of the text decided on; never the text. Read a tenant's page at a time by
row id (`ix_guardrail_audit_tenant_id`), or a task's (`ix_guardrail_audit_tenant_task`).
The check's column is `check_name`: CHECK is an SQL keyword.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-12 06:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guardrail_audit",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("principal_id", sa.String(length=256), nullable=False),
        sa.Column("check_name", sa.String(length=64), nullable=False),
        sa.Column("rule", sa.String(length=256), nullable=False),
        sa.Column("point", sa.String(length=16), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("text_digest", sa.String(length=64), nullable=False),
        sa.Column("task_id", sa.String(length=64), nullable=False),
        sa.Column("agent", sa.String(length=64), nullable=False),
        sa.Column("tool_name", sa.String(length=128), nullable=False),
        sa.Column("call_id", sa.String(length=64), nullable=False),
        sa.Column("trace_id", sa.String(length=32), nullable=False),
    )
    op.create_index("ix_guardrail_audit_tenant_id", "guardrail_audit", ["tenant", "id"])
    op.create_index("ix_guardrail_audit_tenant_task", "guardrail_audit", ["tenant", "task_id"])


def downgrade() -> None:
    op.drop_index("ix_guardrail_audit_tenant_task", table_name="guardrail_audit")
    op.drop_index("ix_guardrail_audit_tenant_id", table_name="guardrail_audit")
    op.drop_table("guardrail_audit")
