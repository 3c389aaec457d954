"""API keys in SQL (SQLite or PostgreSQL)."""

from __future__ import annotations

import builtins
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, select, update

from records.keys import ApiKey
from stores.api_keys.tables import api_keys
from stores.sql.database import Database
from stores.sql.times import aware

_REVOKE = (
    update(api_keys)
    .where(api_keys.c.key_id == bindparam("revoked_id"), api_keys.c.revoked_at.is_(None))
    .values(revoked_at=bindparam("at"))
)


def _key(row: Any) -> ApiKey:
    return ApiKey(
        key_id=row.key_id,
        tenant=row.tenant,
        principal=row.principal,
        roles=tuple(row.roles),
        created_at=aware(row.created_at),  # SQLite keeps no zone: the stored time is UTC
        revoked_at=aware(row.revoked_at),
        secret_sha256=row.secret_sha256,
    )


class SqlKeyStore:
    """KeyStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def add(self, key: ApiKey) -> None:
        await self._writer.insert(
            api_keys,
            {
                "key_id": key.key_id,
                "secret_sha256": key.secret_sha256,
                "tenant": key.tenant,
                "principal": key.principal,
                "roles": list(key.roles),
                "created_at": key.created_at,
                "revoked_at": key.revoked_at,
            },
        )

    async def get(self, key_id: str) -> ApiKey | None:
        async with self._engine.connect() as connection:
            row = (
                await connection.execute(select(api_keys).where(api_keys.c.key_id == key_id))
            ).first()
        return _key(row) if row is not None else None

    async def list(self) -> list[ApiKey]:
        async with self._engine.connect() as connection:
            rows = (
                await connection.execute(select(api_keys).order_by(api_keys.c.created_at))
            ).all()
        return [_key(row) for row in rows]

    async def held_by(self, tenant: str, principal: str) -> builtins.list[ApiKey]:
        query = (
            select(api_keys)
            .where(api_keys.c.tenant == tenant, api_keys.c.principal == principal)
            .order_by(api_keys.c.created_at)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [_key(row) for row in rows]

    async def revoke(self, key_id: str) -> bool:
        changed = await self._writer.execute(
            _REVOKE, {"revoked_id": key_id, "at": datetime.now(UTC)}
        )
        return changed > 0
