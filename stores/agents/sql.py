"""Agents in SQL (SQLite or PostgreSQL): one row per version, definitions as JSON."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import sqlalchemy.exc
from sqlalchemy import and_, func, select, update

from agent import serialization
from agent.agents import AgentDefinition, AgentVersion
from core.errors import AgentExistsError, AgentNotFoundError
from stores.sql.database import Database
from stores.sql.schema import agent_versions
from stores.sql.times import aware

_T = agent_versions.c


def _version(row: Any) -> AgentVersion:
    agent = serialization.loads(row.definition)
    assert isinstance(agent, AgentDefinition)
    return AgentVersion(
        replace(agent, version=row.version), row.tenant, aware(row.created_at), row.created_by
    )


class SqlAgentStore:
    """AgentStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def _latest(self, tenant: str, agent_id: str) -> Any:
        query = (
            select(agent_versions)
            .where(_T.tenant == tenant, _T.agent_id == agent_id)
            .order_by(_T.version.desc())
            .limit(1)
        )
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).first()

    async def create(self, tenant: str, agent: AgentDefinition, by: str) -> AgentVersion:
        latest = await self._latest(tenant, agent.agent_id)
        if latest is not None and latest.deleted_at is None:
            raise AgentExistsError(agent.agent_id)
        return await self._insert(tenant, agent, (latest.version if latest else 0) + 1, by)

    async def update(self, tenant: str, agent: AgentDefinition, by: str) -> AgentVersion:
        latest = await self._latest(tenant, agent.agent_id)
        if latest is None or latest.deleted_at is not None:
            raise AgentNotFoundError(agent.agent_id)
        return await self._insert(tenant, agent, latest.version + 1, by)

    async def _insert(
        self, tenant: str, agent: AgentDefinition, version: int, by: str
    ) -> AgentVersion:
        stored = AgentVersion(replace(agent, version=version), tenant, datetime.now(UTC), by)
        try:
            await self._writer.insert(
                agent_versions,
                {
                    "tenant": tenant,
                    "agent_id": agent.agent_id,
                    "version": version,
                    "definition": serialization.dumps(stored.agent),
                    "created_at": stored.created_at,
                    "created_by": by,
                    "deleted_at": None,
                },
            )
        except sqlalchemy.exc.IntegrityError:  # another write took this version first
            raise AgentExistsError(agent.agent_id) from None
        return stored

    async def get(
        self, tenant: str, agent_id: str, version: int | None = None
    ) -> AgentVersion | None:
        if version is None:
            latest = await self._latest(tenant, agent_id)
            return _version(latest) if latest is not None and latest.deleted_at is None else None
        query = select(agent_versions).where(
            _T.tenant == tenant, _T.agent_id == agent_id, _T.version == version
        )
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return _version(row) if row is not None else None

    async def list(self, tenant: str) -> list[AgentVersion]:
        newest = (
            select(_T.agent_id, func.max(_T.version).label("version"))
            .where(_T.tenant == tenant)
            .group_by(_T.agent_id)
            .subquery()
        )
        query = (
            select(agent_versions)
            .join(
                newest,
                and_(_T.agent_id == newest.c.agent_id, _T.version == newest.c.version),
            )
            .where(_T.tenant == tenant, _T.deleted_at.is_(None))
            .order_by(_T.agent_id)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [_version(row) for row in rows]

    async def delete(self, tenant: str, agent_id: str) -> bool:
        latest = await self._latest(tenant, agent_id)
        if latest is None or latest.deleted_at is not None:
            return False
        statement = (
            update(agent_versions)
            .where(
                _T.tenant == tenant,
                _T.agent_id == agent_id,
                _T.version == latest.version,
                _T.deleted_at.is_(None),
            )
            .values(deleted_at=datetime.now(UTC))
        )
        return await self._writer.execute(statement) > 0
