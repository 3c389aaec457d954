"""tool grants, rpc audit, approval fields of tool call audit

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 14:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tool_grants",
        sa.Column("grant_id", sa.String(length=32), nullable=False),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("subject", sa.String(length=300), nullable=False),
        sa.Column("tool", sa.String(length=200), nullable=False),
        sa.Column("level", sa.String(length=16), nullable=False),
        sa.Column("conditions", sa.JSON(), nullable=False),
        sa.Column("requires_approval", sa.Boolean(), nullable=False),
        sa.Column("created_by", sa.String(length=256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("grant_id"),
    )
    op.create_index("ix_tool_grants_tenant", "tool_grants", ["tenant"])
    op.create_table(
        "rpc_audit",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("principal_id", sa.String(length=256), nullable=False),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("method", sa.String(length=200), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("duration_seconds", sa.Float(), nullable=False),
        sa.Column("trace_id", sa.String(length=32), nullable=False),
        sa.Column("request_digest", sa.String(length=64), nullable=False),
        sa.Column("task_id", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_rpc_audit_tenant_time", "rpc_audit", ["tenant", "time"])
    with op.batch_alter_table("tool_call_audit") as batch:
        batch.add_column(sa.Column("task_id", sa.String(64), nullable=False, server_default=""))
        batch.add_column(sa.Column("approval", sa.String(16), nullable=False, server_default=""))
        batch.add_column(
            sa.Column("approved_by", sa.String(256), nullable=False, server_default="")
        )
        batch.add_column(
            sa.Column("approval_comment", sa.Text(), nullable=False, server_default="")
        )


def downgrade() -> None:
    with op.batch_alter_table("tool_call_audit") as batch:
        for column in ("approval_comment", "approved_by", "approval", "task_id"):
            batch.drop_column(column)
    op.drop_index("ix_rpc_audit_tenant_time", "rpc_audit")
    op.drop_table("rpc_audit")
    op.drop_index("ix_tool_grants_tenant", "tool_grants")
    op.drop_table("tool_grants")
