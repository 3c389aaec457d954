"""Tool grants in SQL (SQLite or PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, select, update

from records.tools.approval_rules import rule_from_json, rule_to_json
from records.tools.grants import Grant, TimeWindow
from records.tools.model import PermissionLevel
from stores.sql.database import Database
from stores.sql.schema import tool_grants
from stores.sql.times import aware


def _grant(row: Any) -> Grant:
    conditions = row.conditions or {}
    window = conditions.get("window")
    return Grant(
        grant_id=row.grant_id,
        tenant=row.tenant,
        subject=row.subject,
        tool=row.tool,
        level=PermissionLevel[row.level],
        created_at=aware(row.created_at),
        created_by=row.created_by,
        expires_at=aware(row.expires_at),
        window=TimeWindow.parse(window) if window else None,
        arguments={k: tuple(v) for k, v in (conditions.get("arguments") or {}).items()},
        requires_approval=row.requires_approval,
        revoked_at=aware(row.revoked_at),
        approval=rule_from_json(row.approval) if row.approval is not None else None,
    )


_REVOKE = (
    update(tool_grants)
    .where(tool_grants.c.grant_id == bindparam("revoked_id"), tool_grants.c.revoked_at.is_(None))
    .values(revoked_at=bindparam("at"))
)


class SqlGrantStore:
    """GrantStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def add(self, grant: Grant) -> None:
        conditions: dict[str, Any] = {
            "window": str(grant.window) if grant.window else None,
            "arguments": {k: list(v) for k, v in grant.arguments.items()},
        }
        await self._writer.insert(
            tool_grants,
            {
                "grant_id": grant.grant_id,
                "tenant": grant.tenant,
                "subject": grant.subject,
                "tool": grant.tool,
                "level": grant.level.name,
                "conditions": conditions,
                "requires_approval": grant.requires_approval,
                "approval": rule_to_json(grant.approval) if grant.approval else None,
                "created_by": grant.created_by,
                "created_at": grant.created_at,
                "expires_at": grant.expires_at,
                "revoked_at": grant.revoked_at,
            },
        )

    async def revoke(self, grant_id: str) -> bool:
        changed = await self._writer.execute(
            _REVOKE, {"revoked_id": grant_id, "at": datetime.now(UTC)}
        )
        return changed > 0

    async def list(
        self, tenant: str | None = None, *, include_revoked: bool = False
    ) -> list[Grant]:
        query = select(tool_grants).order_by(tool_grants.c.created_at, tool_grants.c.grant_id)
        if tenant is not None:
            query = query.where(tool_grants.c.tenant == tenant)
        if not include_revoked:
            query = query.where(tool_grants.c.revoked_at.is_(None))
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [_grant(row) for row in rows]
