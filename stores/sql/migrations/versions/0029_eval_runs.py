"""eval_datasets, eval_runs and eval_results (evaluation runs)

A tenant's datasets are listed newest first (`ix_eval_datasets_tenant_created`), their
cases kept as JSON. An evaluation run's row holds its state, gate and, once it ends, its
aggregate, comparison and gate failures as JSON; its case results are rows of their own
(`eval_results`, one per case as it finishes, by position). Promotion asks for the newest
finished run of an agent version (`ix_eval_runs_agent_version`); a server starting marks
failed the running runs whose heartbeat stopped (`ix_eval_runs_state_heartbeat`).

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-07 22:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "eval_datasets",
        sa.Column("dataset_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("cases", sa.Text(), nullable=False),
        sa.Column("case_count", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.String(length=256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_eval_datasets_tenant_created",
        "eval_datasets",
        ["tenant", "created_at", "dataset_id"],
    )
    _runs()
    op.create_table(
        "eval_results",
        sa.Column("eval_run_id", sa.String(length=64), primary_key=True),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("case_id", sa.String(length=128), nullable=False),
        sa.Column("passed", sa.Boolean(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
    )


def _runs() -> None:
    op.create_table(
        "eval_runs",
        sa.Column("eval_run_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("agent_id", sa.String(length=128), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("dataset_id", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("total_cases", sa.Integer(), nullable=False),
        sa.Column("aggregate", sa.Text(), nullable=False),
        sa.Column("comparison", sa.Text(), nullable=True),
        sa.Column("gate", sa.Text(), nullable=False),
        sa.Column("gate_passed", sa.Boolean(), nullable=False),
        sa.Column("gate_failures", sa.Text(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("labels", sa.Text(), nullable=False),
        sa.Column("baseline_run_id", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("owner", sa.String(length=128), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index(
        "ix_eval_runs_tenant_created", "eval_runs", ["tenant", "created_at", "eval_run_id"]
    )
    op.create_index(
        "ix_eval_runs_agent_version", "eval_runs", ["tenant", "agent_id", "version", "state"]
    )
    op.create_index("ix_eval_runs_state_heartbeat", "eval_runs", ["state", "heartbeat_at"])


def downgrade() -> None:
    op.drop_table("eval_results")
    op.drop_table("eval_runs")
    op.drop_table("eval_datasets")
