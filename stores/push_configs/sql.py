"""Push-notification configs in SQL (SQLite or PostgreSQL): one row per config, with its
cursor and claim (`a2a_push_configs`, migration 0014).

A config's token and credentials are kept sealed (`core.keyring`, purpose
`push-credentials`, each bound to its config and column): sealed on `put`, opened on
every read, so callers see plain values. Without keys a config that carries either is
refused (KeyRequiredError); one without them is kept as before. Rows written before there
was a key hold them in plain text: they read as they are, and `seal_plain` (run at start
with a key) seals them. A value that does not open is SecretUnreadableError for that
config alone: `get` and `of_task` raise it, `claim` logs it and leaves the config out.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import structlog
from sqlalchemy import and_, delete, func, not_, or_, select, tuple_, update

from core.errors import KeyRequiredError, SecretUnreadableError
from core.keyring import PREFIX, KeyRing, SealedValueError, bind, is_sealed
from records.push_configs import PushConfig
from stores.sql.database import Database
from stores.sql.schema import a2a_push_configs

log = structlog.get_logger(__name__)

_T = a2a_push_configs.c
PURPOSE = "push-credentials"
SECRETS = {"token": "token", "auth_credentials": "credentials"}
"""The columns kept sealed, with what a message calls each."""
PAGE = 500
"""Rows read at a time while sealing."""


def _config(row: Any, secrets: dict[str, str]) -> PushConfig:
    return PushConfig(
        tenant=row.tenant,
        task_id=row.task_id,
        config_id=row.config_id,
        url=row.url,
        token=secrets["token"],
        auth_scheme=row.auth_scheme,
        auth_credentials=secrets["auth_credentials"],
        created_by=row.created_by,
        delivered_through=row.delivered_through,
        finished=row.finished,
    )


def _bound(tenant: str, task_id: str, config_id: str, column: str) -> bytes:
    return bind(tenant, task_id, config_id, column)


def _named(row: Any, column: str) -> str:
    config = f"push notification config {row.config_id!r} of task {row.task_id}"
    return f"the {SECRETS[column]} of {config}"


def _key(tenant: str, task_id: str, config_id: str) -> Any:
    return and_(_T.tenant == tenant, _T.task_id == task_id, _T.config_id == config_id)


class SqlPushConfigStore:
    """PushConfigStore on a database (owned by the caller), its secrets sealed with `ring`;
    writes through the database's writer. Also `core.keyring.SealedValues`."""

    def __init__(self, database: Database, ring: KeyRing) -> None:
        self._engine = database.engine
        self._writer = database.writer
        self._ring = ring

    def _sealed(self, config: PushConfig, column: str) -> str:
        plain: str = getattr(config, column)
        if not plain:
            return ""
        bound = _bound(config.tenant, config.task_id, config.config_id, column)
        what = f"a push notification config's {SECRETS[column]}"
        return self._ring.seal(PURPOSE, plain.encode(), bound, what=what)

    def _opened(self, row: Any) -> PushConfig:
        """The row's config, its secrets opened; SecretUnreadableError (logged) when one
        does not open."""
        secrets: dict[str, str] = {}
        for column in SECRETS:
            stored: str = getattr(row, column)
            if not is_sealed(stored):  # empty, or kept before there was a key
                secrets[column] = stored
                continue
            bound = _bound(row.tenant, row.task_id, row.config_id, column)
            try:
                secrets[column] = self._ring.open(PURPOSE, stored, bound).decode()
            except (SealedValueError, KeyRequiredError) as error:
                why = "the server holds no key" if isinstance(error, KeyRequiredError) else error
                log.error(
                    "a push notification config's secret does not open",
                    tenant=row.tenant,
                    task_id=row.task_id,
                    config_id=row.config_id,
                    column=column,
                    error=str(why),
                )
                raise SecretUnreadableError(_named(row, column), str(why)) from None
        return _config(row, secrets)

    async def put(self, config: PushConfig, now: datetime) -> None:
        fields = {
            "url": config.url,
            "token": self._sealed(config, "token"),
            "auth_scheme": config.auth_scheme,
            "auth_credentials": self._sealed(config, "auth_credentials"),
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
        return self._opened(row) if row is not None else None

    async def of_task(self, tenant: str, task_id: str) -> list[PushConfig]:
        query = (
            select(a2a_push_configs)
            .where(_T.tenant == tenant, _T.task_id == task_id)
            .order_by(_T.config_id)
        )
        async with self._engine.connect() as connection:
            rows = list(await connection.execute(query))
        return [self._opened(row) for row in rows]

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
            try:
                config: PushConfig | None = self._opened(row)
            except SecretUnreadableError:  # logged; claimed all the same, so that it is
                config = None  # tried (and said) again once a lease, not on every poll
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
            if await self._writer.execute(statement) and config is not None:
                claimed.append(config)
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

    async def reseal(self, ring: KeyRing) -> int:
        """Every token and credentials under `ring`'s current key (`SealedValues`)."""
        return await self._seal_where(ring, f"{PREFIX}{ring.current_id}:")

    async def seal_plain(self, ring: KeyRing) -> int:
        """Seal the tokens and credentials kept in plain text (stored before there was a
        key); how many. Values sealed already, with any key, are left as they are."""
        return await self._seal_where(ring, PREFIX)

    async def plain_count(self) -> int:
        """How many tokens and credentials are kept in plain text."""
        total = 0
        async with self._engine.connect() as connection:
            for column in SECRETS:
                stored = getattr(_T, column)
                query = select(func.count()).where(_due(stored, PREFIX))
                total += (await connection.execute(query)).scalar_one()
        return total

    async def _seal_where(self, ring: KeyRing, sealed_prefix: str) -> int:
        """Seal with `ring`'s current key every value that does not begin with
        `sealed_prefix`, a page of rows at a time; each row updated only while its values
        are still those read (another replica, or a `put`, may change them meanwhile)."""
        if not ring.present:
            raise KeyRequiredError("push notification credentials")
        behind = or_(*(_due(getattr(_T, column), sealed_prefix) for column in SECRETS))
        key = tuple_(_T.tenant, _T.task_id, _T.config_id)
        columns = (_T.tenant, _T.task_id, _T.config_id, _T.token, _T.auth_credentials)
        moved, after = 0, None
        while True:  # each page starts after the last: as many rounds as pages
            query = select(*columns).where(behind).order_by(*key.clauses).limit(PAGE)
            if after is not None:
                query = query.where(key > tuple_(*after))
            async with self._engine.connect() as connection:
                rows = list(await connection.execute(query))
            for row in rows:
                moved += await self._seal_row(ring, row, lambda v: not v.startswith(sealed_prefix))
            if len(rows) < PAGE:
                return moved
            after = (rows[-1].tenant, rows[-1].task_id, rows[-1].config_id)

    async def _seal_row(self, ring: KeyRing, row: Any, due: Callable[[str], bool]) -> int:
        changes: dict[str, str] = {}
        for column in SECRETS:
            stored: str = getattr(row, column)
            if not stored or not due(stored):
                continue
            bound = _bound(row.tenant, row.task_id, row.config_id, column)
            try:
                changes[column] = ring.reseal(PURPOSE, stored, bound)
            except SealedValueError as error:
                log.error(
                    "a push notification config's secret does not open: left as it is",
                    tenant=row.tenant,
                    task_id=row.task_id,
                    config_id=row.config_id,
                    column=column,
                    error=str(error),
                )
        if not changes:
            return 0
        unchanged = [getattr(_T, column) == getattr(row, column) for column in SECRETS]
        statement = (
            update(a2a_push_configs)
            .where(_key(row.tenant, row.task_id, row.config_id), *unchanged)
            .values(**changes)
        )
        return len(changes) if await self._writer.execute(statement) else 0


def _due(column: Any, sealed_prefix: str) -> Any:
    """A value that is not empty and does not begin with `sealed_prefix`."""
    return and_(column != "", not_(column.startswith(sealed_prefix, autoescape=True)))
