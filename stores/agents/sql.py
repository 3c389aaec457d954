"""Agents in SQL (SQLite or PostgreSQL): one row per version, definitions as JSON."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import sqlalchemy.exc
from sqlalchemy import Select, and_, bindparam, func, select, update

from core.errors import AgentExistsError, AgentNotFoundError
from records import serialization
from records.agents.definition import AgentDefinition, AgentVersion
from records.paging import KeyCursor, Page, id_after
from stores.agents.base import agent_page
from stores.sql.database import Database, insert_of
from stores.sql.group_commit import check_row
from stores.sql.schema import agent_promotions, agent_versions
from stores.sql.times import aware

_T = agent_versions.c
_P = agent_promotions.c


def _version(row: Any, promoted: int = 0) -> AgentVersion:
    agent = serialization.loads(row.definition)
    assert isinstance(agent, AgentDefinition)
    return AgentVersion(
        replace(agent, version=row.version),
        row.tenant,
        aware(row.created_at),
        row.created_by,
        promoted=promoted,
    )


class SqlAgentStore:
    """AgentStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer
        statement = insert_of(database.dialect, agent_promotions)
        self._promote = statement.on_conflict_do_update(
            index_elements=[_P.tenant, _P.agent_id],
            set_={
                "version": statement.excluded.version,
                "promoted_at": statement.excluded.promoted_at,
                "promoted_by": statement.excluded.promoted_by,
            },
        )

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

    async def _row(self, tenant: str, agent_id: str, version: int) -> Any:
        query = select(agent_versions).where(
            _T.tenant == tenant, _T.agent_id == agent_id, _T.version == version
        )
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).first()

    async def get(
        self, tenant: str, agent_id: str, version: int | None = None, *, promoted: bool = False
    ) -> AgentVersion | None:
        pointer = None  # read once: the bare id's lookup has it already
        if version is None:
            latest = await self._latest(tenant, agent_id)
            if latest is None or latest.deleted_at is not None:
                return None
            pointer = (await self._pointers(tenant, [agent_id]))[agent_id]
            if not promoted or pointer.served == latest.version:
                return _version(latest, pointer.promoted)
            version = pointer.served
        row = await self._row(tenant, agent_id, version)
        if row is None:
            return None
        if pointer is None:
            pointer = (await self._pointers(tenant, [agent_id]))[agent_id]
        return _version(row, pointer.promoted)

    async def list(
        self, tenant: str, *, size: int, after: KeyCursor | None = None, promoted: bool = False
    ) -> Page[AgentVersion, KeyCursor]:
        query = (
            _live(select(agent_versions), tenant)
            .where(_T.agent_id > id_after(after))
            .order_by(_T.agent_id)
            .limit(size + 1)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        pointers = await self._pointers(tenant, [row.agent_id for row in rows])
        if promoted:
            rows = await self._served(tenant, rows, pointers)
        return agent_page([_version(row, pointers[row.agent_id].promoted) for row in rows], size)

    async def _served(
        self, tenant: str, rows: Sequence[Any], pointers: Mapping[str, _Pointer]
    ) -> Sequence[Any]:
        """`rows` (latest versions) with each replaced by the version its bare id serves
        under the gate, in the same order."""
        others = {
            r.agent_id: pointers[r.agent_id].served
            for r in rows
            if pointers[r.agent_id].served != r.version
        }
        if not others:
            return rows
        query = select(agent_versions).where(
            _T.tenant == tenant,
            _T.agent_id.in_(others),
            _T.version.in_(set(others.values())),
        )
        async with self._engine.connect() as connection:
            found = {
                r.agent_id: r
                for r in (await connection.execute(query)).all()
                if others.get(r.agent_id) == r.version
            }
        return [found.get(row.agent_id, row) for row in rows]

    async def _pointers(self, tenant: str, agent_ids: Collection[str]) -> dict[str, _Pointer]:
        """Each agent's promoted version and the version it had when last deleted."""
        if not agent_ids:
            return {}
        deleted = (
            select(_T.agent_id, func.max(_T.version))
            .where(_T.tenant == tenant, _T.agent_id.in_(agent_ids), _T.deleted_at.is_not(None))
            .group_by(_T.agent_id)
        )
        promotions = select(_P.agent_id, _P.version).where(
            _P.tenant == tenant, _P.agent_id.in_(agent_ids)
        )
        async with self._engine.connect() as connection:
            floors = {i: int(v) for i, v in (await connection.execute(deleted)).all()}
            promoted = {i: int(v) for i, v in (await connection.execute(promotions)).all()}
        return {i: _Pointer(promoted.get(i, 0), floors.get(i, 0)) for i in agent_ids}

    async def promote(self, tenant: str, agent_id: str, version: int, by: str) -> AgentVersion:
        """A delete racing the promotion wins: the row it leaves is of a deleted agent."""
        latest = await self._latest(tenant, agent_id)
        floor = (await self._pointers(tenant, [agent_id]))[agent_id].floor
        if latest is None or latest.deleted_at is not None or not floor < version <= latest.version:
            raise AgentNotFoundError(f"{agent_id}@{version}")
        row = await self._row(tenant, agent_id, version)
        values = {
            "tenant": tenant,
            "agent_id": agent_id,
            "version": version,
            "promoted_at": datetime.now(UTC),
            "promoted_by": by,
        }
        await self._writer.execute(self._promote, values)
        return _version(row, version)

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


@dataclass(frozen=True, slots=True)
class _Pointer:
    """What an agent's bare id serves under the gate."""

    promotion: int
    """The version of its `agent_promotions` row; 0: none."""
    floor: int
    """Its latest version when it was last deleted (0: never): those up to it are of the
    agent before, and a promotion of one of them means nothing."""

    @property
    def promoted(self) -> int:
        return self.promotion if self.promotion > self.floor else 0

    @property
    def served(self) -> int:
        return self.promoted or self.floor + 1


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
