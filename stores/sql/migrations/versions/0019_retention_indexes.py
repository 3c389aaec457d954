"""Indexes the retention sweeps read in order: task_history by updated_at (a finished
task's end), artifacts by created_at. Without them each sweep would scan its table.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-07 00:00:00.000000
"""

from __future__ import annotations

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_task_history_updated", "task_history", ["updated_at"])
    op.create_index("ix_artifacts_created", "artifacts", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_artifacts_created", table_name="artifacts")
    op.drop_index("ix_task_history_updated", table_name="task_history")
