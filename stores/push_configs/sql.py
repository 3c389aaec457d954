"""Push-notification configs in SQL (SQLite or PostgreSQL): one row per config, with its
cursor and claim (`a2a_push_configs`, migration 0014)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, or_, select, update

from records.push_configs import PushConfig
from stores.sql.database import Database
from stores.sql.schema import a2a_push_configs

_T = a2a_push_configs.c


def _config(row: Any) -> PushConfig:
    return PushConfig(
        tenant=row.tenant,
        task_id=row.task_id,
        config_id=row.config_id,
        url=row.url,
        token=row.token,
        auth_scheme=row.auth_scheme,
        auth_credentials=row.auth_credentials,
        created_by=row.created_by,
        delivered_through=row.delivered_through,
        finished=row.finished,
    )


def _key(tenant: str, task_id: str, config_id: str) -> Any:
    return and_(_T.tenant == tenant, _T.task_id == task_id, _T.config_id == config_id)


class SqlPushConfigStore:
    """PushConfigStore on a database (owned by the caller); writes through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def put(self, config: PushConfig, now: datetime) -> None:
        fields = {
            "url": config.url,
            "token": config.token,
            "auth_scheme": config.auth_scheme,
            "auth_credentials": config.auth_credentials,
            "created_by": config.created_by,
        }
        key = _key(config.tenant, config.task_id, config.config_id)
        if await self._writer.execute(update(a2a_push_configs).where(key).values(**fields)):
            return
        await self._writer.insert(
            a2a_push_configs,
            {
                "tenant": config.tenant,
                "task_id": config.task_id,
                "config_id": config.config_id,
                **fields,
                "created_at": now,
                "delivered_through": 0,
                "finished": False,
                "claimed_by": "",
                "claimed_until": None,
            },
        )

    async def get(self, tenant: str, task_id: str, config_id: str) -> PushConfig | None:
        query = select(a2a_push_configs).where(_key(tenant, task_id, config_id))
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return _config(row) if row is not None else None

    async def of_task(self, tenant: str, task_id: str) -> list[PushConfig]:
        query = (
            select(a2a_push_configs)
            .where(_T.tenant == tenant, _T.task_id == task_id)
            .order_by(_T.config_id)
        )
        async with self._engine.connect() as connection:
            return [_config(row) for row in await connection.execute(query)]

    async def delete(self, tenant: str, task_id: str, config_id: str) -> bool:
        statement = delete(a2a_push_configs).where(_key(tenant, task_id, config_id))
        return bool(await self._writer.execute(statement))

    async def claim(
        self, replica: str, now: datetime, until: datetime, limit: int
    ) -> list[PushConfig]:
        free = or_(_T.claimed_until.is_(None), _T.claimed_until < now)
        query = (
            select(a2a_push_configs)
            .where(_T.finished.is_(False), free)
            .order_by(_T.created_at)
            .limit(limit)
        )
        async with self._engine.connect() as connection:
            rows = list(await connection.execute(query))
        claimed: list[PushConfig] = []
        for row in rows:  # compare and set: another replica may take it in between
            same = (
                _T.claimed_until.is_(None)
                if row.claimed_until is None
                else _T.claimed_until == row.claimed_until
            )
            statement = (
                update(a2a_push_configs)
                .where(_key(row.tenant, row.task_id, row.config_id), same, _T.finished.is_(False))
                .values(claimed_by=replica, claimed_until=until)
            )
            if await self._writer.execute(statement):
                claimed.append(_config(row))
        return claimed

    async def advance(
        self, config: PushConfig, replica: str, through: int, finished: bool, until: datetime
    ) -> bool:
        statement = (
            update(a2a_push_configs)
            .where(_key(config.tenant, config.task_id, config.config_id), _T.claimed_by == replica)
            .values(delivered_through=through, finished=finished, claimed_until=until)
        )
        return bool(await self._writer.execute(statement))

    async def release(self, config: PushConfig, replica: str) -> None:
        statement = (
            update(a2a_push_configs)
            .where(_key(config.tenant, config.task_id, config.config_id), _T.claimed_by == replica)
            .values(claimed_by="", claimed_until=None)
        )
        await self._writer.execute(statement)
