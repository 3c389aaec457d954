"""A tenant's webhooks: what the RPC handlers call. Every call needs a role of
AGENTD_WEBHOOK_ADMIN_ROLES (admin) and sees the caller's tenant only.

A webhook's URL is checked against the destination rules of `http_request` when it is
made or changed (and again on every connection), its filters are checked (known event
types, agent ids, labels as tasks carry them), and its signing secret (the caller's, or
one made here) is kept sealed with the server's key (`core.keyring`): without a key
none is made (KEY_REQUIRED). The secret is answered only by create and rotate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from agent.requests import label_violations
from core.errors import (
    FieldViolation,
    InvalidArgumentError,
    KeyRequiredError,
    WebhookNotFoundError,
)
from core.identity import Principal
from core.keyring import KeyRing
from core.roles import Action, RoleTable
from records.agents.team_keys import AGENT_ID
from records.paging import Page, PositionCursor, TimeKeyCursor
from records.webhooks import (
    EVENT_TYPES,
    SECRET_PURPOSE,
    DeadLetter,
    Webhook,
    new_webhook_id,
    secret_binding,
)
from server.delivery.signing import new_secret, secret_problem
from server.services.destinations import checked_destination
from server.services.webhook_outbox import WebhookOutboxWriter
from stores.webhooks.base import WebhookStore
from tools.builtin.addresses import IPNetwork

MAX_AGENTS = 32
MAX_DESCRIPTION = 1024
MAX_URL = 2048
MAX_EVENT_IDS = 1000
SECRET_WHAT = "a webhook's signing secret"


class WebhookService:
    """Create, read, change and delete webhooks; their dead letters and redelivery."""

    def __init__(
        self,
        store: WebhookStore,
        ring: KeyRing,
        roles: RoleTable,
        allowed: Sequence[IPNetwork],
        writer: WebhookOutboxWriter | None = None,
    ) -> None:
        self._store = store
        self._ring = ring
        self._roles = roles
        self._allowed = allowed
        self._writer = writer

    def _admin(self, principal: Principal) -> None:
        self._roles.require(principal.roles, Action.MANAGE_WEBHOOKS)

    def _changed(self, tenant: str) -> None:
        if self._writer is not None:
            self._writer.changed(tenant)

    async def _checked(self, draft: Webhook) -> Webhook:
        """`draft` as kept: its URL as it will be POSTed to; InvalidArgumentError listing
        what is wrong with it."""
        found = _filter_violations(draft)
        url = draft.url
        if not url:
            found.append(FieldViolation("webhook.url", "is required"))
        elif len(url) > MAX_URL:
            found.append(FieldViolation("webhook.url", f"is longer than {MAX_URL} characters"))
        else:
            try:
                url = await checked_destination(url, self._allowed)
            except InvalidArgumentError as error:
                found.extend(
                    FieldViolation(f"webhook.{v.field}", v.description)
                    for v in error.field_violations
                )
        if found:
            raise InvalidArgumentError(found)
        return replace(
            draft,
            url=url,
            event_types=tuple(dict.fromkeys(draft.event_types)),
            agents=tuple(dict.fromkeys(draft.agents)),
        )

    def _sealed(self, tenant: str, webhook_id: str, secret: str) -> tuple[str, str]:
        """(the secret, sealed): the caller's (checked) or a new one."""
        if secret:
            problem = secret_problem(secret)
            if problem is not None:
                raise InvalidArgumentError([FieldViolation("secret", problem)])
        if not self._ring.present:
            raise KeyRequiredError(SECRET_WHAT)
        secret = secret or new_secret()
        bound = secret_binding(tenant, webhook_id)
        return secret, self._ring.seal(SECRET_PURPOSE, secret.encode(), bound, what=SECRET_WHAT)

    async def _found(self, principal: Principal, webhook_id: str) -> Webhook:
        found = await self._store.get(principal.tenant, webhook_id)
        if found is None:
            raise WebhookNotFoundError(webhook_id)
        return found

    async def create(
        self, principal: Principal, draft: Webhook, secret: str = ""
    ) -> tuple[Webhook, str]:
        """The webhook as kept (with its health) and its secret, shown only now."""
        self._admin(principal)
        webhook = await self._checked(draft)
        webhook_id = new_webhook_id()
        secret, sealed = self._sealed(principal.tenant, webhook_id, secret)
        webhook = replace(
            webhook,
            webhook_id=webhook_id,
            tenant=principal.tenant,
            created_by=principal.id,
            created_at=datetime.now(UTC),
            secret=sealed,
        )
        await self._store.create(webhook)
        self._changed(principal.tenant)
        return await self._found(principal, webhook_id), secret

    async def get(self, principal: Principal, webhook_id: str) -> Webhook:
        self._admin(principal)
        return await self._found(principal, webhook_id)

    async def list(
        self, principal: Principal, size: int, after: TimeKeyCursor | None
    ) -> Page[Webhook, TimeKeyCursor]:
        self._admin(principal)
        return await self._store.list(principal.tenant, size, after)

    async def update(self, principal: Principal, draft: Webhook) -> Webhook:
        self._admin(principal)
        current = await self._found(principal, draft.webhook_id)
        webhook = await self._checked(replace(draft, tenant=current.tenant))
        if not await self._store.update(webhook):
            raise WebhookNotFoundError(draft.webhook_id)
        self._changed(principal.tenant)
        return await self._found(principal, draft.webhook_id)

    async def delete(self, principal: Principal, webhook_id: str) -> None:
        self._admin(principal)
        if not await self._store.delete(principal.tenant, webhook_id):
            raise WebhookNotFoundError(webhook_id)
        self._changed(principal.tenant)

    async def rotate(
        self, principal: Principal, webhook_id: str, secret: str = ""
    ) -> tuple[Webhook, str]:
        """A new secret, used from the next attempt on; the webhook and the secret."""
        self._admin(principal)
        await self._found(principal, webhook_id)
        secret, sealed = self._sealed(principal.tenant, webhook_id, secret)
        if not await self._store.set_secret(principal.tenant, webhook_id, sealed):
            raise WebhookNotFoundError(webhook_id)
        return await self._found(principal, webhook_id), secret

    async def dead_letters(
        self, principal: Principal, webhook_id: str, size: int, after: PositionCursor | None
    ) -> Page[DeadLetter, PositionCursor]:
        self._admin(principal)
        await self._found(principal, webhook_id)
        return await self._store.dead_letters(principal.tenant, webhook_id, size, after)

    async def redeliver(
        self, principal: Principal, webhook_id: str, event_ids: Sequence[str]
    ) -> int:
        self._admin(principal)
        if len(event_ids) > MAX_EVENT_IDS:
            problem = f"holds more than {MAX_EVENT_IDS} ids"
            raise InvalidArgumentError([FieldViolation("event_ids", problem)])
        await self._found(principal, webhook_id)
        now = datetime.now(UTC)
        return await self._store.redeliver(principal.tenant, webhook_id, event_ids, now)


def _filter_violations(draft: Webhook) -> list[FieldViolation]:
    """What is wrong with a webhook's event types, agents, labels and description."""
    found: list[FieldViolation] = []
    for index, event_type in enumerate(draft.event_types):
        if event_type not in EVENT_TYPES:
            known = ", ".join(sorted(EVENT_TYPES))
            found.append(FieldViolation(f"webhook.event_types[{index}]", f"is not one of: {known}"))
    if len(draft.agents) > MAX_AGENTS:
        found.append(FieldViolation("webhook.agents", f"holds more than {MAX_AGENTS} agents"))
    for index, agent in enumerate(draft.agents):
        if not AGENT_ID.fullmatch(agent):
            found.append(
                FieldViolation(
                    f"webhook.agents[{index}]",
                    "is not an agent id (1 to 64 of a-z, 0-9 and -, no version)",
                )
            )
    found.extend(label_violations(draft.labels, "webhook.labels"))
    if len(draft.description) > MAX_DESCRIPTION:
        found.append(
            FieldViolation("webhook.description", f"is longer than {MAX_DESCRIPTION} characters")
        )
    return found
