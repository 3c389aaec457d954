"""The tables of datasets and evaluation runs (migration 0029), on the schema's one
`metadata` (`stores.sql.schema` imports this module)."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, Index, Integer, String, Table, Text

from stores.sql.metadata import metadata

eval_datasets = Table(
    "eval_datasets",
    metadata,
    Column("dataset_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("name", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("cases", Text, nullable=False),
    Column("case_count", Integer, nullable=False),
    Column("created_by", String(256), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_eval_datasets_tenant_created", "tenant", "created_at", "dataset_id"),
)
"""A tenant's datasets, their cases as JSON (`records.evals.codec`)."""

eval_runs = Table(
    "eval_runs",
    metadata,
    Column("eval_run_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("agent_id", String(128), nullable=False),
    Column("version", Integer, nullable=False),
    Column("dataset_id", String(64), nullable=False),
    Column("state", String(16), nullable=False),
    Column("total_cases", Integer, nullable=False),
    Column("aggregate", Text, nullable=False),
    Column("comparison", Text, nullable=True),
    Column("gate", Text, nullable=False),
    Column("gate_passed", Boolean, nullable=False),
    Column("gate_failures", Text, nullable=False),
    Column("error", Text, nullable=False),
    Column("labels", Text, nullable=False),
    Column("baseline_run_id", String(64), nullable=False),
    Column("created_by", String(256), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("owner", String(128), nullable=False),
    Column("heartbeat_at", DateTime(timezone=True), nullable=True),
    Index("ix_eval_runs_tenant_created", "tenant", "created_at", "eval_run_id"),
    Index("ix_eval_runs_agent_version", "tenant", "agent_id", "version", "state"),
    Index("ix_eval_runs_state_heartbeat", "state", "heartbeat_at"),
)
"""Evaluation runs: the aggregate, comparison, gate and gate failures as JSON."""

eval_results = Table(
    "eval_results",
    metadata,
    Column("eval_run_id", String(64), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("case_id", String(128), nullable=False),
    Column("passed", Boolean, nullable=False),
    Column("data", Text, nullable=False),
)
"""A run's case results as they finish, one row each (its JSON), by position in the run."""
