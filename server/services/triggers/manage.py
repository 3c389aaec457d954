"""A tenant's inbound triggers: what the RPC handlers call. Every call needs a role of
AGENTD_TRIGGER_ADMIN_ROLES (operator, admin) and sees the caller's tenant only.

A trigger keeps its creator's principal (each delivery's task runs as it, re-resolved at
each delivery) and its signing secret (the caller's, or one made here) sealed with the
server's key (`core.keyring`): without a key none is made (KEY_REQUIRED). The secret is
answered only by create and rotate; a rotation keeps the previous secret verifying for
its ttl (an hour unless said), so senders can switch.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from agent.requests import label_violations
from core.errors import FieldViolation, InvalidArgumentError, TriggerNotFoundError
from core.identity import Principal
from core.keyring import KeyRing
from core.roles import Action, RoleTable
from records.paging import Page, TimeKeyCursor
from records.triggers import LABEL, SECRET_PURPOSE, Trigger, new_trigger_id, secret_binding
from server.delivery.signing import new_secret, secret_problem
from stores.triggers.base import TriggerStore

MAX_GOAL = 5000
MAX_CONTEXT_BYTES = 10_240
MAX_NAME = 200
MAX_TTL_SECONDS = 7 * 86_400
DEFAULT_TTL_SECONDS = 3600.0
SECRET_WHAT = "a trigger's signing secret"


def _now() -> datetime:
    return datetime.now(UTC)


def _violations(draft: Trigger) -> list[FieldViolation]:
    found: list[FieldViolation] = []
    if not draft.goal.strip() or len(draft.goal) > MAX_GOAL:
        found.append(FieldViolation("trigger.task.goal", f"must be 1 to {MAX_GOAL} characters"))
    if len(draft.display_name) > MAX_NAME:
        found.append(FieldViolation("trigger.display_name", f"is over {MAX_NAME} characters"))
    if "trigger" in draft.context:
        found.append(
            FieldViolation("trigger.task.context", "may not hold 'trigger' (each delivery's)")
        )
    if len(json.dumps(dict(draft.context))) > MAX_CONTEXT_BYTES:
        found.append(
            FieldViolation("trigger.task.context", f"is over {MAX_CONTEXT_BYTES} bytes as JSON")
        )
    if draft.token_budget < 0:
        found.append(FieldViolation("trigger.task.token_budget", "may not be negative"))
    if draft.spend_limit < 0:
        found.append(FieldViolation("trigger.task.spend_limit", "may not be negative"))
    if draft.timeout_seconds < 0:
        found.append(FieldViolation("trigger.task.timeout", "may not be negative"))
    if LABEL in draft.labels:
        found.append(FieldViolation(f"trigger.task.labels[{LABEL}]", "is set by the server"))
    found.extend(
        FieldViolation(f"trigger.task.{v.field}", v.description)
        for v in label_violations(dict(draft.labels), "labels")
    )
    return found


class TriggerService:
    """Create, read, rotate and delete a tenant's triggers."""

    def __init__(
        self,
        store: TriggerStore,
        ring: KeyRing,
        roles: RoleTable,
        now: Callable[[], datetime] = _now,
    ) -> None:
        self._store = store
        self._ring = ring
        self._roles = roles
        self._now = now

    def _admin(self, principal: Principal) -> None:
        self._roles.require(principal.roles, Action.MANAGE_TRIGGERS)

    def _sealed(self, tenant: str, trigger_id: str, secret: str, field: str) -> tuple[str, str]:
        """The secret (made here when "") and it sealed for the trigger's row."""
        if secret:
            problem = secret_problem(secret)
            if problem is not None:
                raise InvalidArgumentError([FieldViolation(field, problem)])
        plain = secret or new_secret()
        bound = secret_binding(tenant, trigger_id)
        return plain, self._ring.seal(SECRET_PURPOSE, plain.encode(), bound, what=SECRET_WHAT)

    async def create(
        self, principal: Principal, draft: Trigger, secret: str = ""
    ) -> tuple[Trigger, str]:
        """Keep a new trigger running as `principal`; it and its secret (answered once)."""
        self._admin(principal)
        found = _violations(draft)
        if found:
            raise InvalidArgumentError(found)
        trigger_id = new_trigger_id()
        plain, sealed = self._sealed(principal.tenant, trigger_id, secret, "secret")
        trigger = replace(
            draft,
            trigger_id=trigger_id,
            tenant=principal.tenant,
            principal=principal.id,
            roles=principal.roles,
            secret=sealed,
            previous_secret="",
            previous_until=None,
            created_at=self._now(),
            last_delivery_at=None,
            deliveries=0,
            refused=0,
        )
        await self._store.create(trigger)
        return trigger, plain

    async def get(self, principal: Principal, trigger_id: str) -> Trigger:
        self._admin(principal)
        found = await self._store.get(principal.tenant, trigger_id)
        if found is None:
            raise TriggerNotFoundError(trigger_id)
        return found

    async def list(
        self, principal: Principal, size: int, after: TimeKeyCursor | None
    ) -> Page[Trigger, TimeKeyCursor]:
        self._admin(principal)
        return await self._store.list(principal.tenant, size, after)

    async def delete(self, principal: Principal, trigger_id: str) -> None:
        self._admin(principal)
        if not await self._store.delete(principal.tenant, trigger_id):
            raise TriggerNotFoundError(trigger_id)

    async def rotate(
        self,
        principal: Principal,
        trigger_id: str,
        secret: str = "",
        ttl_seconds: float | None = None,
    ) -> tuple[Trigger, str]:
        """A new secret; the old one verifies for `ttl_seconds` more (None: an hour). The
        trigger and the new secret (answered once)."""
        current = await self.get(principal, trigger_id)
        ttl = DEFAULT_TTL_SECONDS if ttl_seconds is None else ttl_seconds
        if not 0 <= ttl <= MAX_TTL_SECONDS:
            raise InvalidArgumentError(
                [FieldViolation("previous_secret_ttl", f"must be 0 to {MAX_TTL_SECONDS} seconds")]
            )
        plain, sealed = self._sealed(current.tenant, trigger_id, secret, "secret")
        until = self._now() + timedelta(seconds=ttl)
        if not await self._store.rotate(current.tenant, trigger_id, sealed, current.secret, until):
            raise TriggerNotFoundError(trigger_id)
        return await self.get(principal, trigger_id), plain
