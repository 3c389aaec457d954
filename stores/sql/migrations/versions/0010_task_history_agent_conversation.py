"""task_history.agent_id, .agent_version and .conversation_id, for ListTasks filters;
filled in for the rows already there from their stored task

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26 09:00:00.000000
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

BATCH = 500
"""Rows read (and rewritten) at a time while filling in the new columns."""


def upgrade() -> None:
    with op.batch_alter_table("task_history") as table:
        table.add_column(
            sa.Column("agent_id", sa.String(length=64), nullable=False, server_default="")
        )
        table.add_column(
            sa.Column("agent_version", sa.Integer(), nullable=False, server_default="0")
        )
        table.add_column(
            sa.Column("conversation_id", sa.String(length=64), nullable=False, server_default="")
        )
    op.create_index(
        "ix_task_history_tenant_agent", "task_history", ["tenant", "agent_id", "created_at"]
    )
    op.create_index(
        "ix_task_history_conversation", "task_history", ["conversation_id", "created_at"]
    )
    _fill_in()


def _columns(data: str) -> dict[str, Any]:
    """The new columns' values of one stored task (`records.serialization`'s JSON: the task's
    fields by name, its agent a mapping with `agent_id` and `version`, or null)."""
    try:
        task = json.loads(data)
    except ValueError:
        return {}
    agent = task.get("agent") if isinstance(task, dict) else None
    found: dict[str, Any] = {}
    if isinstance(agent, dict) and isinstance(agent.get("agent_id"), str):
        found["agent_id"] = agent["agent_id"][:64]
        version = agent.get("version")
        found["agent_version"] = version if isinstance(version, int) else 0
    conversation = task.get("conversation_id") if isinstance(task, dict) else None
    if isinstance(conversation, str) and conversation:
        found["conversation_id"] = conversation[:64]
    return found


def _fill_in() -> None:
    """Every row's agent and conversation, read from its `data`; keyset batches by id."""
    bind = op.get_bind()
    history = sa.table(
        "task_history",
        sa.column("task_id", sa.String),
        sa.column("data", sa.Text),
        sa.column("agent_id", sa.String),
        sa.column("agent_version", sa.Integer),
        sa.column("conversation_id", sa.String),
    )
    after = ""
    while True:  # ends: each batch starts past the last id of the one before
        rows = bind.execute(
            sa.select(history.c.task_id, history.c.data)
            .where(history.c.task_id > after)
            .order_by(history.c.task_id)
            .limit(BATCH)
        ).all()
        for task_id, data in rows:
            values = _columns(data)
            if values:
                bind.execute(history.update().where(history.c.task_id == task_id).values(**values))
        if len(rows) < BATCH:
            return
        after = rows[-1][0]


def downgrade() -> None:
    op.drop_index("ix_task_history_conversation", table_name="task_history")
    op.drop_index("ix_task_history_tenant_agent", table_name="task_history")
    with op.batch_alter_table("task_history") as table:
        table.drop_column("conversation_id")
        table.drop_column("agent_version")
        table.drop_column("agent_id")
