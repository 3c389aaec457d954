"""A task's push-notification configs (A2A's webhooks), over `stores.push_configs`: a config
belongs to a task of the caller's tenant (the task is looked up first: another tenant's
is not found), its URL must be an allowed destination, and its token and credentials need
the server's keys (the store keeps them sealed). `server.a2a.push_rpcs` serves
them as A2A messages; `server.services.push` delivers."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from agent.engine import Engine
from core.errors import FieldViolation, InvalidArgumentError, KeyRequiredError
from core.identity import CallContext
from core.keyring import KeyRing
from records.push_configs import PushConfig
from server.services.destinations import checked_destination
from stores.push_configs.base import PushConfigStore
from tools.builtin.addresses import IPNetwork

MAX_ID = 64


class PushConfigs:
    """Create, get, list and delete a task's configs for the caller."""

    def __init__(
        self,
        engine: Engine,
        store: PushConfigStore,
        allowed: Sequence[IPNetwork],
        ring: KeyRing,
    ) -> None:
        self._engine = engine
        self._store = store
        self._allowed = allowed
        self._ring = ring

    async def check(self, config: PushConfig) -> str:
        """What `create` refuses, refused before anything is started (a config sent with a
        message is checked before its task starts): an id longer than MAX_ID, a URL outside
        the allowed destinations, a token or credentials without a key to seal them
        (KeyRequiredError). The URL as it will be kept."""
        if len(config.config_id) > MAX_ID:
            problem = f"is longer than {MAX_ID} characters"
            raise InvalidArgumentError([FieldViolation("id", problem)], f"id {problem}")
        if not self._ring.present:
            for secret, what in ((config.token, "token"), (config.auth_credentials, "credentials")):
                if secret:
                    raise KeyRequiredError(f"a push notification config's {what}")
        return await checked_destination(config.url, self._allowed)

    async def create(self, call: CallContext, config: PushConfig) -> PushConfig:
        """Keep `config` for its task: its tenant the task's, its id made when empty (at
        most MAX_ID characters), its URL checked, made by the caller; the config as kept."""
        task = await self._engine.find(call.principal.tenant, config.task_id)
        url = await self.check(config)
        kept = replace(
            config,
            tenant=task.tenant,
            task_id=task.task_id,
            config_id=config.config_id or "push_" + secrets.token_hex(8),
            url=url,
            created_by=call.principal.id,
        )
        await self._store.put(kept, datetime.now(UTC))
        return kept

    async def get(self, call: CallContext, task_id: str, config_id: str) -> PushConfig | None:
        task = await self._engine.find(call.principal.tenant, task_id)
        return await self._store.get(task.tenant, task.task_id, config_id)

    async def of_task(self, call: CallContext, task_id: str) -> list[PushConfig]:
        """The task's configs, by id."""
        task = await self._engine.find(call.principal.tenant, task_id)
        return await self._store.of_task(task.tenant, task.task_id)

    async def delete(self, call: CallContext, task_id: str, config_id: str) -> None:
        task = await self._engine.find(call.principal.tenant, task_id)
        await self._store.delete(task.tenant, task.task_id, config_id)
