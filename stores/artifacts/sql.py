"""Artifacts in SQL (SQLite or PostgreSQL): a row per version.

A write reads the name's highest version and inserts the next one; the primary key
(space, name, version) refuses a second row of one number, so when two writers (of
this process or another replica) race, the loser reads again and takes the next
number. The statements are built once, with bound parameters.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import sqlalchemy.exc
from sqlalchemy import LargeBinary, and_, bindparam, func, select

from records.tasks import utcnow
from stores.artifacts.base import Artifact, ArtifactInfo
from stores.sql.database import Database
from stores.sql.schema import artifacts
from stores.sql.times import aware

_A = artifacts.c
WRITE_ATTEMPTS = 20
"""Tries at a version number while other writers of the name take them."""
_INFO = (_A.name, _A.version, _A.media_type, _A.size, _A.writer_task_id, _A.created_at)
_IN_SPACE = and_(_A.space == bindparam("b_space"), _A.tenant == bindparam("b_tenant"))
_TOP = select(func.max(_A.version)).where(
    _A.space == bindparam("b_space"), _A.name == bindparam("b_name")
)
_READ = select(*_INFO, _A.content).where(
    _IN_SPACE, _A.name == bindparam("b_name"), _A.version == bindparam("b_version")
)
_DESCRIBE = select(*_INFO).where(
    _IN_SPACE, _A.name == bindparam("b_name"), _A.version == bindparam("b_version")
)
_DESCRIBE_LATEST = (
    select(*_INFO).where(_IN_SPACE, _A.name == bindparam("b_name")).order_by(_A.version.desc())
).limit(1)
_RANGE = select(
    func.substr(_A.content, bindparam("b_from"), bindparam("b_length"), type_=LargeBinary)
).where(_IN_SPACE, _A.name == bindparam("b_name"), _A.version == bindparam("b_version"))
"""A piece of one version's content (SQL's `substr` counts from 1, on SQLite's blobs and
PostgreSQL's bytea alike)."""
_READ_LATEST = (
    select(*_INFO, _A.content)
    .where(_IN_SPACE, _A.name == bindparam("b_name"))
    .order_by(_A.version.desc())
    .limit(1)
)


def _tops(*extra: Any) -> Any:
    """The latest version of each name in the space (that also meets `extra`)."""
    newest = (
        select(_A.name.label("n"), func.max(_A.version).label("v"))
        .where(_IN_SPACE, *extra)
        .group_by(_A.name)
        .subquery()
    )
    return (
        select(*_INFO)
        .join(newest, and_(_A.name == newest.c.n, _A.version == newest.c.v))
        .where(_IN_SPACE)
        .order_by(_A.name)
    )


_LATEST = _tops()
_WRITTEN_BY = _tops(_A.writer_task_id == bindparam("b_writer"))


def _info(row: Any) -> ArtifactInfo:
    return ArtifactInfo(
        row.name, row.version, row.media_type, row.size, row.writer_task_id, aware(row.created_at)
    )


class SqlArtifactStore:
    """ArtifactStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def _rows(self, statement: Any, **params: Any) -> list[Any]:
        async with self._engine.connect() as connection:
            return list((await connection.execute(statement, params)).all())

    async def write(
        self,
        tenant: str,
        space: str,
        name: str,
        media_type: str,
        content: bytes,
        writer_task_id: str,
    ) -> ArtifactInfo:
        for _ in range(WRITE_ATTEMPTS):
            top = (await self._rows(_TOP, b_space=space, b_name=name))[0][0] or 0
            info = ArtifactInfo(name, top + 1, media_type, len(content), writer_task_id, utcnow())
            row = {
                "space": space,
                "name": name,
                "version": info.version,
                "tenant": tenant,
                "media_type": media_type,
                "size": info.size,
                "content": bytes(content),
                "writer_task_id": writer_task_id,
                "created_at": info.created_at,
            }
            try:
                await self._writer.insert(artifacts, row)
            except sqlalchemy.exc.IntegrityError:
                await asyncio.sleep(random.uniform(0, 0.01))  # another writer took it
                continue
            return info
        raise RuntimeError(f"could not write artifact {name!r} (kept racing)")

    async def read(
        self, tenant: str, space: str, name: str, version: int | None = None
    ) -> Artifact | None:
        params = {"b_space": space, "b_tenant": tenant, "b_name": name}
        if version is None:
            rows = await self._rows(_READ_LATEST, **params)
        else:
            rows = await self._rows(_READ, **params, b_version=version)
        if not rows:
            return None
        return Artifact(_info(rows[0]), bytes(rows[0].content))

    async def describe(
        self, tenant: str, space: str, name: str, version: int | None = None
    ) -> ArtifactInfo | None:
        params = {"b_space": space, "b_tenant": tenant, "b_name": name}
        if version is None:
            rows = await self._rows(_DESCRIBE_LATEST, **params)
        else:
            rows = await self._rows(_DESCRIBE, **params, b_version=version)
        return _info(rows[0]) if rows else None

    async def read_range(
        self, tenant: str, space: str, name: str, version: int, offset: int, length: int
    ) -> bytes:
        params = {"b_space": space, "b_tenant": tenant, "b_name": name, "b_version": version}
        rows = await self._rows(_RANGE, **params, b_from=offset + 1, b_length=length)
        return bytes(rows[0][0] or b"") if rows else b""

    async def latest(self, tenant: str, space: str) -> list[ArtifactInfo]:
        return [_info(r) for r in await self._rows(_LATEST, b_space=space, b_tenant=tenant)]

    async def written_by(self, tenant: str, space: str, task_id: str) -> list[ArtifactInfo]:
        rows = await self._rows(_WRITTEN_BY, b_space=space, b_tenant=tenant, b_writer=task_id)
        return [_info(r) for r in rows]
