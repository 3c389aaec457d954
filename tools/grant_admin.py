"""Managing a tenant's grants through the API: its admins only, its grants only."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from core.errors import (
    FieldViolation,
    GrantAboveLimitError,
    GrantNotFoundError,
    InvalidArgumentError,
)
from core.identity import Principal
from core.roles import DEFAULT_ROLES, Action, RoleTable
from records.tools.grants import Grant, new_grant_id
from records.tools.model import PermissionLevel
from stores.grants.base import GrantStore
from tools.grant_review import GrantWarning, review
from tools.permissions import GrantPolicy

RolesHeld = Callable[[str], Awaitable[Mapping[str, Sequence[tuple[str, ...]]]]]
"""A tenant -> each of its principals' roles, one tuple per active API key."""


@dataclass(frozen=True, slots=True)
class Created:
    """A grant just made, and its review's warnings (`tools.grant_review`)."""

    grant: Grant
    warnings: tuple[GrantWarning, ...] = ()


class GrantAdmin:
    """Creates, revokes and lists grants of the caller's own tenant.

    A change takes effect on this process at once (its policy is reloaded)
    and on the other replicas when they next reload their grants. Grants
    made through the API are capped at `max_level` (EXECUTE by default): a
    tenant admin cannot give anyone, itself included, ADMIN on a tool; only an
    operator can, with `agentd grants` on the database. Each new grant is
    reviewed against the tenant's grants in force (and, with `held`, the roles on
    its API keys); the warnings come back with it.
    """

    def __init__(
        self,
        store: GrantStore,
        policy: GrantPolicy | None,
        roles: RoleTable = DEFAULT_ROLES,
        max_level: PermissionLevel = PermissionLevel.EXECUTE,
        held: RolesHeld | None = None,
    ) -> None:
        self._store = store
        self._held = held
        self._policy = policy
        self._roles = roles
        self._max_level = max_level

    def _require_admin(self, principal: Principal) -> None:
        self._roles.require(principal.roles, Action.MANAGE_GRANTS)

    async def create(self, principal: Principal, draft: Grant) -> Created:
        self._require_admin(principal)
        if draft.level > self._max_level:
            raise GrantAboveLimitError(draft.level.name, self._max_level.name)
        now = datetime.now(UTC)
        if draft.expires_at is not None and draft.expires_at <= now:
            raise InvalidArgumentError([FieldViolation("grant.expires_at", "is in the past")])
        grant = replace(
            draft,
            grant_id=new_grant_id(),
            tenant=principal.tenant,
            created_by=principal.id,
            created_at=now,
            revoked_at=None,
        )
        held = await self._held(grant.tenant) if self._held is not None else {}
        in_force = await self._store.list(grant.tenant)
        warnings = await asyncio.to_thread(review, grant, in_force, held, now)
        await self._store.add(grant)
        await self._reload()
        return Created(grant, tuple(warnings))

    async def revoke(self, principal: Principal, grant_id: str) -> Grant:
        self._require_admin(principal)
        live = {g.grant_id for g in await self._store.list(principal.tenant)}
        if grant_id not in live or not await self._store.revoke(grant_id):
            raise GrantNotFoundError(grant_id)
        await self._reload()
        every = await self._store.list(principal.tenant, include_revoked=True)
        return next(g for g in every if g.grant_id == grant_id)

    async def list(self, principal: Principal, include_revoked: bool = False) -> list[Grant]:
        self._require_admin(principal)
        return await self._store.list(principal.tenant, include_revoked=include_revoked)

    async def _reload(self) -> None:
        if self._policy is not None:
            await self._policy.refresh(self._store)
