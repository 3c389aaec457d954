"""The inbox's history table (on the schema's one `MetaData`; `stores.sql.schema` names it
with the others). Changes go through a new Alembic migration, as for every table."""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Index, String, Table, Text

from stores.sql.metadata import metadata

action_history = Table(
    "action_history",
    metadata,
    Column("entry_id", String(64), primary_key=True),
    Column("tenant", String(128), nullable=False),
    Column("task_id", String(64), nullable=False),
    Column("root_task_id", String(64), nullable=False),
    Column("request_id", String(256), nullable=False),
    Column("wait_kind", String(16), nullable=False),
    Column("step", String(16), nullable=False),
    Column("time", DateTime(timezone=True), nullable=False),
    Column("tool_name", String(200), nullable=False),
    Column("agent", String(200), nullable=False),
    Column("actor", String(256), nullable=False),
    Column("outcome", String(32), nullable=False),
    Column("roles", Text, nullable=False),
    Column("deadline_at", DateTime(timezone=True), nullable=True),
    Index("ix_action_history_tenant_time", "tenant", "time", "task_id", "entry_id"),
    Index("ix_action_history_task", "task_id", "time", "entry_id"),
    Index("ix_action_history_root", "root_task_id", "time", "task_id", "entry_id"),
    Index("ix_action_history_time", "time"),
)
"""The inbox's history (`stores.action_history`): a row per step of a wait for a person,
its id made of the step (a step recorded twice is one row). `roles` is JSON text, the
enums their values; what the wait asked is not kept. Indexed for a tenant's history in its
order (ListActionHistory: oldest first, by task, then entry), a task's, a task tree's,
and retention's sweep by time."""
