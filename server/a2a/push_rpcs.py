"""A2A's push-notification config operations over `stores.push_configs`: a config belongs
to a task of the caller's tenant; its URL must be an allowed destination."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

from a2a.types import a2a_pb2
from a2a.utils.errors import InvalidParamsError

from agent.engine import Engine
from core.identity import CallContext
from records.push_configs import PushConfig
from server.a2a.push import checked_destination
from server.interceptors.audit import note_task
from stores.push_configs.base import PushConfigStore
from tools.builtin.addresses import IPNetwork

MAX_ID = 64


def _to_a2a(config: PushConfig) -> a2a_pb2.TaskPushNotificationConfig:
    """The config as A2A shows it: never its credentials."""
    shown = a2a_pb2.TaskPushNotificationConfig(
        id=config.config_id, task_id=config.task_id, url=config.url, token=config.token
    )
    if config.auth_scheme:
        shown.authentication.scheme = config.auth_scheme
    return shown


class PushRpcs:
    """Create, get, list and delete a task's push-notification configs."""

    def __init__(
        self, engine: Engine, configs: PushConfigStore, allowed: Sequence[IPNetwork]
    ) -> None:
        self._engine = engine
        self._configs = configs
        self._allowed = allowed

    async def create(
        self, call: CallContext, params: a2a_pb2.TaskPushNotificationConfig
    ) -> a2a_pb2.TaskPushNotificationConfig:
        note_task(params.task_id)
        task = await self._engine.find(call.principal.tenant, params.task_id)
        config_id = params.id or "push_" + secrets.token_hex(8)
        if len(config_id) > MAX_ID:
            raise InvalidParamsError(f"id is longer than {MAX_ID} characters")
        config = PushConfig(
            tenant=task.tenant,
            task_id=task.task_id,
            config_id=config_id,
            url=await checked_destination(params.url, self._allowed),
            token=params.token,
            auth_scheme=params.authentication.scheme,
            auth_credentials=params.authentication.credentials,
            created_by=call.principal.id,
        )
        await self._configs.put(config, datetime.now(UTC))
        return _to_a2a(config)

    async def get(
        self, call: CallContext, task_id: str, config_id: str
    ) -> a2a_pb2.TaskPushNotificationConfig:
        note_task(task_id)
        task = await self._engine.find(call.principal.tenant, task_id)
        found = await self._configs.get(task.tenant, task.task_id, config_id)
        if found is None:
            raise InvalidParamsError(
                f"task {task_id} has no push notification config {config_id!r}"
            )
        return _to_a2a(found)

    async def list(
        self, call: CallContext, task_id: str
    ) -> a2a_pb2.ListTaskPushNotificationConfigsResponse:
        note_task(task_id)
        task = await self._engine.find(call.principal.tenant, task_id)
        found = await self._configs.of_task(task.tenant, task.task_id)
        return a2a_pb2.ListTaskPushNotificationConfigsResponse(configs=[_to_a2a(c) for c in found])

    async def delete(self, call: CallContext, task_id: str, config_id: str) -> None:
        note_task(task_id)
        task = await self._engine.find(call.principal.tenant, task_id)
        await self._configs.delete(task.tenant, task.task_id, config_id)
