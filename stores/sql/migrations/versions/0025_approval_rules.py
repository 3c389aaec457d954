"""Approval rules: a grant's rule, and what a wait opened under one keeps

`tool_grants.approval` (JSON, null for none) is the approval rule of a grant that requires
approval: who decides, by when, what the deadline does. An approval's wait keeps whether
its roles are a rule's (`roles_by_rule`), when its reminder is due (`remind_at`, indexed
with `state` for the periodic pass), how often it was escalated (`escalation_level`) and
the step to other roles its deadline takes (`escalation`, JSON text, null for none).
`tool_call_audit.approval` widens to 32 characters: "timed out: approved" is what a
call a deadline approved records.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-09 09:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tool_call_audit") as table:
        table.alter_column(
            "approval",
            existing_type=sa.String(16),
            type_=sa.String(32),
            existing_nullable=False,
            existing_server_default="",
        )
    with op.batch_alter_table("tool_grants") as table:
        table.add_column(sa.Column("approval", sa.JSON(), nullable=True))
    with op.batch_alter_table("task_waits") as table:
        table.add_column(
            sa.Column("roles_by_rule", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        table.add_column(sa.Column("remind_at", sa.DateTime(timezone=True), nullable=True))
        table.add_column(
            sa.Column("escalation_level", sa.Integer(), nullable=False, server_default="0")
        )
        table.add_column(sa.Column("escalation", sa.Text(), nullable=True))
    op.create_index("ix_task_waits_remind", "task_waits", ["state", "remind_at"])


def downgrade() -> None:
    op.drop_index("ix_task_waits_remind", table_name="task_waits")
    with op.batch_alter_table("task_waits") as table:
        table.drop_column("escalation")
        table.drop_column("escalation_level")
        table.drop_column("remind_at")
        table.drop_column("roles_by_rule")
    with op.batch_alter_table("tool_grants") as table:
        table.drop_column("approval")
    for long, short in (
        ("timed out: approved", "timeout:approved"),
        ("timed out: denied", "timeout:denied"),
    ):
        op.execute(
            sa.text(
                "UPDATE tool_call_audit SET approval = :short WHERE approval = :long"
            ).bindparams(long=long, short=short)
        )
    with op.batch_alter_table("tool_call_audit") as table:
        table.alter_column(
            "approval",
            existing_type=sa.String(32),
            type_=sa.String(16),
            existing_nullable=False,
            existing_server_default="",
        )
