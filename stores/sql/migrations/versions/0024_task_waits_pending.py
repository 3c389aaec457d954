"""task_waits: the inbox's index in the inbox's order

ListPendingActions reads a tenant's open waits oldest first, ties by task and slot, a page
after the last one shown: `ix_task_waits_pending` (tenant, state, created_at, task_id,
slot) is that order whole, so a page is one range of the index. It replaces
`ix_task_waits_inbox` (tenant, state, created_at), its first three columns.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-08 09:00:00.000000
"""

from __future__ import annotations

from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_task_waits_pending",
        "task_waits",
        ["tenant", "state", "created_at", "task_id", "slot"],
    )
    op.drop_index("ix_task_waits_inbox", table_name="task_waits")


def downgrade() -> None:
    op.create_index("ix_task_waits_inbox", "task_waits", ["tenant", "state", "created_at"])
    op.drop_index("ix_task_waits_pending", table_name="task_waits")
