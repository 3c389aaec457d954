"""conversations and conversation_turns: multi-turn threads and their running summaries

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 06:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "conversations",
        sa.Column("conversation_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("created_by", sa.String(length=256), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("labels", sa.JSON(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("summarized_through", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("turn_count", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("message_count", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("total_tokens", sa.BigInteger(), nullable=False, server_default="0"),
    )
    op.create_index(
        "ix_conversations_tenant_owner_created",
        "conversations",
        ["tenant", "created_by", "created_at"],
    )
    op.create_table(
        "conversation_turns",
        sa.Column("conversation_id", sa.String(length=64), primary_key=True),
        sa.Column("turn", sa.Integer(), primary_key=True),
        sa.Column("task_id", sa.String(length=64), nullable=False),
        sa.Column("first_index", sa.BigInteger(), nullable=False),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.Column("tokens_through", sa.BigInteger(), nullable=False),
        sa.Column("messages", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("conversation_id", "task_id", name="uq_conversation_turns_task"),
    )
    op.create_index(
        "ix_conversation_turns_first_index",
        "conversation_turns",
        ["conversation_id", "first_index"],
    )


def downgrade() -> None:
    op.drop_index("ix_conversation_turns_first_index", table_name="conversation_turns")
    op.drop_table("conversation_turns")
    op.drop_index("ix_conversations_tenant_owner_created", table_name="conversations")
    op.drop_table("conversations")
