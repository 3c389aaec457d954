"""The trigger methods of the synchronous `AgentClient` (a mixin, as in the async
client: `agentd_client.triggers`)."""

from __future__ import annotations

from datetime import timedelta
from functools import cached_property
from typing import Any

import grpc

from agentd.v1 import schedules_pb2 as pb
from agentd.v1 import schedules_pb2_grpc as pb_grpc
from agentd_client.triggers.methods import rotate_request


class SyncTriggerMethods:
    _channel: grpc.Channel

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    @cached_property
    def _triggers(self) -> pb_grpc.TriggerServiceStub:
        return pb_grpc.TriggerServiceStub(self._channel)

    def create_trigger(
        self, trigger: pb.Trigger, *, secret: str = "", timeout: float | None = None
    ) -> pb.Trigger:
        request = pb.CreateTriggerRequest(trigger=trigger, secret=secret)
        made: pb.Trigger = self._unary(self._triggers.CreateTrigger, request, timeout)
        return made

    def get_trigger(self, trigger_id: str, *, timeout: float | None = None) -> pb.Trigger:
        request = pb.GetTriggerRequest(id=trigger_id)
        found: pb.Trigger = self._unary(self._triggers.GetTrigger, request, timeout)
        return found

    def list_triggers(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> pb.ListTriggersResponse:
        request = pb.ListTriggersRequest(page_size=page_size, page_token=page_token)
        page: pb.ListTriggersResponse = self._unary(self._triggers.ListTriggers, request, timeout)
        return page

    def delete_trigger(self, trigger_id: str, *, timeout: float | None = None) -> None:
        self._unary(self._triggers.DeleteTrigger, pb.DeleteTriggerRequest(id=trigger_id), timeout)

    def rotate_trigger_secret(
        self,
        trigger_id: str,
        *,
        secret: str = "",
        previous_secret_ttl: timedelta | None = None,
        timeout: float | None = None,
    ) -> pb.Trigger:
        request = rotate_request(trigger_id, secret, previous_secret_ttl)
        rotated: pb.Trigger = self._unary(self._triggers.RotateTriggerSecret, request, timeout)
        return rotated
