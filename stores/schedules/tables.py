"""The tables of schedules and their runs (migration 0031), on the schema's one
`metadata` (`stores.sql.schema` imports this module)."""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Index, String, Table, Text

from stores.sql.metadata import metadata

schedules = Table(
    "schedules",
    metadata,
    Column("schedule_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("state", String(16), nullable=False),
    Column("wake_at", DateTime(timezone=True), nullable=True),
    Column("claimed_by", String(128), nullable=False),
    Column("claimed_until", DateTime(timezone=True), nullable=True),
    Column("etag", String(64), nullable=False),
    Column("revision", String(64), nullable=False, server_default=""),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("data", Text, nullable=False),
    Index("ix_schedules_tenant_created", "tenant", "created_at", "schedule_id"),
    Index("ix_schedules_state_wake", "state", "wake_at"),
)
"""A schedule (its record as JSON, `records.schedules.codec`), with the columns a claim
reads: its state, when it is next looked at and who holds its lease until when."""

schedule_runs = Table(
    "schedule_runs",
    metadata,
    Column("schedule_id", String(64), primary_key=True),
    Column("due_at", DateTime(timezone=True), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("state", String(16), nullable=False),
    Column("task_id", String(64), nullable=False),
    Column("reason", Text, nullable=False),
    Column("request_id", String(128), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=True),
    Index("ix_schedule_runs_due", "due_at"),
    Index("ix_schedule_runs_request", "schedule_id", "request_id"),
)
"""One row per due time of a schedule: the primary key `(schedule_id, due_at)` is what
lets one replica, and only one, start a due time's task."""
