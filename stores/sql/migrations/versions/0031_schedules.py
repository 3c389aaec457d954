"""schedules and schedule_runs (ScheduleService)

A schedule's row keeps its record as JSON, with the columns a replica's claim reads
(`ix_schedules_state_wake`): its state, when it is next looked at, and the replica
holding its lease until when. A run is one row per due time, its primary key
`(schedule_id, due_at)`: a due time starts one task across every replica. Retention
deletes old runs by due time (`ix_schedule_runs_due`); TriggerSchedule finds its earlier
run by request id (`ix_schedule_runs_request`).

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-08 01:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "schedules",
        sa.Column("schedule_id", sa.String(length=64), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("wake_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("claimed_by", sa.String(length=128), nullable=False),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("etag", sa.String(length=64), nullable=False),
        sa.Column("revision", sa.String(length=64), nullable=False, server_default=""),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
    )
    op.create_index(
        "ix_schedules_tenant_created", "schedules", ["tenant", "created_at", "schedule_id"]
    )
    op.create_index("ix_schedules_state_wake", "schedules", ["state", "wake_at"])
    op.create_table(
        "schedule_runs",
        sa.Column("schedule_id", sa.String(length=64), primary_key=True),
        sa.Column("due_at", sa.DateTime(timezone=True), primary_key=True),
        sa.Column("tenant", sa.String(length=128), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("task_id", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("request_id", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_schedule_runs_due", "schedule_runs", ["due_at"])
    op.create_index("ix_schedule_runs_request", "schedule_runs", ["schedule_id", "request_id"])


def downgrade() -> None:
    op.drop_table("schedule_runs")
    op.drop_table("schedules")
