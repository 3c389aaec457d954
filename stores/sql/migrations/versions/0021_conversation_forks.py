"""conversation forks and rewinds: lineage, hidden turns, kept summaries

A fork names the conversations whose turns it shares (`lineage`) instead of copying
them; a rewind records the turn ranges it hides (`hidden`); `fork_refs` and
`deleted_at` keep a deleted conversation's turns while forks still read them. Every
summary a conversation stores is kept in `conversation_summaries`, so that a fork and
a rewind find the one at their point; each existing summary is kept there now.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-10 06:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("conversations") as batch:
        batch.add_column(
            sa.Column("forked_from", sa.String(length=64), nullable=False, server_default="")
        )
        batch.add_column(
            sa.Column("forked_at_turn", sa.BigInteger(), nullable=False, server_default="0")
        )
        batch.add_column(sa.Column("lineage", sa.Text(), nullable=True))
        batch.add_column(sa.Column("hidden", sa.Text(), nullable=True))
        batch.add_column(
            sa.Column("fork_refs", sa.BigInteger(), nullable=False, server_default="0")
        )
        batch.add_column(sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "conversation_summaries",
        sa.Column("conversation_id", sa.String(length=64), primary_key=True),
        sa.Column("summarized_through", sa.BigInteger(), primary_key=True),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.execute(
        "INSERT INTO conversation_summaries (conversation_id, summarized_through, summary, "
        "created_at) SELECT conversation_id, summarized_through, summary, updated_at "
        "FROM conversations WHERE summary <> '' AND summarized_through > 0"
    )


def downgrade() -> None:
    op.drop_table("conversation_summaries")
    with op.batch_alter_table("conversations") as batch:
        for column in ("deleted_at", "fork_refs", "hidden", "lineage", "forked_at_turn"):
            batch.drop_column(column)
        batch.drop_column("forked_from")
