"""A2A's push-notification config operations: A2A's messages in and out, the configs
themselves kept by the push configs service (`server.services.push_configs`)."""

from __future__ import annotations

from a2a.types import a2a_pb2
from a2a.utils.errors import InvalidParamsError

from core.identity import CallContext
from records.push_configs import PushConfig
from server.interceptors.audit import note_task
from server.services.push_configs import PushConfigs


def _to_a2a(config: PushConfig) -> a2a_pb2.TaskPushNotificationConfig:
    """The config as A2A shows it: never its credentials."""
    shown = a2a_pb2.TaskPushNotificationConfig(
        id=config.config_id, task_id=config.task_id, url=config.url, token=config.token
    )
    if config.auth_scheme:
        shown.authentication.scheme = config.auth_scheme
    return shown


def _draft(call: CallContext, params: a2a_pb2.TaskPushNotificationConfig) -> PushConfig:
    return PushConfig(
        tenant=call.principal.tenant,
        task_id=params.task_id,
        config_id=params.id,
        url=params.url,
        token=params.token,
        auth_scheme=params.authentication.scheme,
        auth_credentials=params.authentication.credentials,
    )


class PushRpcs:
    """Create, get, list and delete a task's push-notification configs."""

    def __init__(self, configs: PushConfigs) -> None:
        self._configs = configs

    async def check(self, call: CallContext, params: a2a_pb2.TaskPushNotificationConfig) -> None:
        """Refuse what `create` would, before the task it is sent with is started."""
        await self._configs.check(_draft(call, params))

    async def create(
        self, call: CallContext, params: a2a_pb2.TaskPushNotificationConfig
    ) -> a2a_pb2.TaskPushNotificationConfig:
        note_task(params.task_id)
        return _to_a2a(await self._configs.create(call, _draft(call, params)))

    async def get(
        self, call: CallContext, task_id: str, config_id: str
    ) -> a2a_pb2.TaskPushNotificationConfig:
        note_task(task_id)
        found = await self._configs.get(call, task_id, config_id)
        if found is None:
            raise InvalidParamsError(
                f"task {task_id} has no push notification config {config_id!r}"
            )
        return _to_a2a(found)

    async def list(
        self, call: CallContext, task_id: str
    ) -> a2a_pb2.ListTaskPushNotificationConfigsResponse:
        note_task(task_id)
        found = await self._configs.of_task(call, task_id)
        return a2a_pb2.ListTaskPushNotificationConfigsResponse(configs=[_to_a2a(c) for c in found])

    async def delete(self, call: CallContext, task_id: str, config_id: str) -> None:
        note_task(task_id)
        await self._configs.delete(call, task_id, config_id)
