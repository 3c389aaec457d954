"""knowledge_ingestion_jobs, and the state, external id and job of knowledge_documents:
documents are ingested by jobs with their own status, and upserted by external id

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27 03:40:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("knowledge_documents") as batch:
        batch.add_column(sa.Column("state", sa.String(16), nullable=False, server_default="READY"))
        batch.add_column(
            sa.Column("external_id", sa.String(256), nullable=False, server_default="")
        )
        batch.add_column(sa.Column("job_id", sa.String(64), nullable=False, server_default=""))
    op.create_index(
        "ix_knowledge_documents_external",
        "knowledge_documents",
        ["tenant", "knowledge_base_id", "external_id"],
    )
    op.create_index("ix_knowledge_documents_state", "knowledge_documents", ["state"])
    op.create_table(
        "knowledge_ingestion_jobs",
        sa.Column("tenant", sa.String(128), primary_key=True),
        sa.Column("job_id", sa.String(64), primary_key=True),
        sa.Column("knowledge_base_id", sa.String(64), nullable=False),
        sa.Column("document_id", sa.String(64), nullable=False),
        sa.Column("external_id", sa.String(256), nullable=False),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("media_type", sa.String(64), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("background", sa.Boolean(), nullable=False),
        sa.Column("chunks_done", sa.Integer(), nullable=False),
        sa.Column("chunks_total", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(256), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error_reason", sa.String(64), nullable=False),
        sa.Column("error", sa.String(1024), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=True),
    )
    op.create_index(
        "ix_knowledge_ingestion_jobs_base",
        "knowledge_ingestion_jobs",
        ["tenant", "knowledge_base_id", "job_id"],
    )
    op.create_index(
        "ix_knowledge_ingestion_jobs_state", "knowledge_ingestion_jobs", ["state", "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_knowledge_ingestion_jobs_state", table_name="knowledge_ingestion_jobs")
    op.drop_index("ix_knowledge_ingestion_jobs_base", table_name="knowledge_ingestion_jobs")
    op.drop_table("knowledge_ingestion_jobs")
    op.drop_index("ix_knowledge_documents_state", table_name="knowledge_documents")
    op.drop_index("ix_knowledge_documents_external", table_name="knowledge_documents")
    with op.batch_alter_table("knowledge_documents") as batch:
        batch.drop_column("job_id")
        batch.drop_column("external_id")
        batch.drop_column("state")
