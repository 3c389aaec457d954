"""The table of promoted agent versions (migration 0030), on the schema's one `metadata`
(`stores.sql.schema` imports this module, so it is part of it wherever it is read)."""

from __future__ import annotations

from sqlalchemy import Column, DateTime, Integer, String, Table

from stores.sql.metadata import metadata

agent_promotions = Table(
    "agent_promotions",
    metadata,
    Column("tenant", String(128), primary_key=True),
    Column("agent_id", String(64), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("promoted_at", DateTime(timezone=True), nullable=False),
    Column("promoted_by", String(256), nullable=False),
)
"""Each agent's promoted version (`agent_versions`), replaced by the next promotion. A
row whose version is not above the agent's last deleted one is of an agent since
deleted, and means nothing."""
