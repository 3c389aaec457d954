"""Agents in SQL (SQLite or PostgreSQL): one row per version, definitions as JSON."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import sqlalchemy.exc
from sqlalchemy import Select, and_, bindparam, func, select, update

from core.errors import AgentExistsError, AgentNotFoundError
from records import serialization
from records.agents.definition import AgentDefinition, AgentVersion
from records.paging import KeyCursor, Page, id_after
from stores.agents.base import agent_page
from stores.sql.database import Database
from stores.sql.group_commit import check_row
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
        return await self._insert(tenant, agent, latest.version + 1, by, after=latest.version)

    async def _insert(
        self, tenant: str, agent: AgentDefinition, version: int, by: str, after: int = 0
    ) -> AgentVersion:
        """Store `version`; with `after`, only while version `after` is still the live
        latest (compare and set: a delete or another update in between wins)."""
        stored = AgentVersion(replace(agent, version=version), tenant, datetime.now(UTC), by)
        row = {
            "tenant": tenant,
            "agent_id": agent.agent_id,
            "version": version,
            "definition": serialization.dumps(stored.agent),
            "created_at": stored.created_at,
            "created_by": by,
            "deleted_at": None,
        }
        try:
            if not after:
                await self._writer.insert(agent_versions, row)
                return stored
            check_row(agent_versions, row)  # as the writer checks a plain insert's row
            statement = _insert_after(tenant, agent.agent_id, after)
            params = {f"v_{k}": v for k, v in row.items()}
            added = await self._writer.execute(statement, params)
        except sqlalchemy.exc.IntegrityError:  # another write took this version first
            raise AgentExistsError(agent.agent_id) from None
        if added == 0:  # version `after` was deleted (or replaced) meanwhile
            latest = await self._latest(tenant, agent.agent_id)
            if latest is None or latest.deleted_at is not None:
                raise AgentNotFoundError(agent.agent_id)
            raise AgentExistsError(agent.agent_id)
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

    async def list(
        self, tenant: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[AgentVersion, KeyCursor]:
        query = (
            _live(select(agent_versions), tenant)
            .where(_T.agent_id > id_after(after))
            .order_by(_T.agent_id)
            .limit(size + 1)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return agent_page([_version(row) for row in rows], size)

    async def count(self, tenant: str) -> int:
        query = _live(select(func.count()).select_from(agent_versions), tenant)
        async with self._engine.connect() as connection:
            return int((await connection.execute(query)).scalar_one())

    async def delete(self, tenant: str, agent_id: str) -> bool:
        for _ in range(DELETE_ATTEMPTS):
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
            if await self._writer.execute(statement) == 0:
                continue  # deleted or replaced meanwhile: look again
            newest = await self._latest(tenant, agent_id)
            if newest is not None and newest.version == latest.version:
                return True
            # an update slipped in before the mark: the newer version is deleted too
        raise AgentExistsError(agent_id)


DELETE_ATTEMPTS = 10


def _live(query: Select[Any], tenant: str) -> Select[Any]:
    """`query` over the newest version of each of the tenant's agents, deleted ones left out."""
    newest = (
        select(_T.agent_id, func.max(_T.version).label("version"))
        .where(_T.tenant == tenant)
        .group_by(_T.agent_id)
        .subquery()
    )
    return query.join(
        newest, and_(_T.agent_id == newest.c.agent_id, _T.version == newest.c.version)
    ).where(_T.tenant == tenant, _T.deleted_at.is_(None))


def _insert_after(tenant: str, agent_id: str, after: int) -> Any:
    """INSERT of the next version that holds only while version `after` is the live latest
    (its row locked on PostgreSQL until the insert commits, so a delete waits for it);
    its parameters are the new row's columns, prefixed `v_`."""
    columns = [
        "tenant",
        "agent_id",
        "version",
        "definition",
        "created_at",
        "created_by",
        "deleted_at",
    ]
    values = (
        select(*(bindparam(f"v_{c}", type_=agent_versions.c[c].type) for c in columns))
        .select_from(agent_versions)
        .where(
            _T.tenant == tenant,
            _T.agent_id == agent_id,
            _T.version == after,
            _T.deleted_at.is_(None),
        )
        .with_for_update()
    )
    return agent_versions.insert().from_select(columns, values)
