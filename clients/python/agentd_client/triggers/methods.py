"""The trigger methods of `AgentClient` (a mixin: the client supplies the channel and
the error mapping), over TriggerService. Triggers need the trigger admin role (operator,
admin); a trigger's secret is answered only by `create_trigger` and
`rotate_trigger_secret`. Deliveries are HTTP POSTs to `/v1/triggers/<id>` on the HTTP
address, signed the Standard Webhooks way (see docs/triggers.md)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from functools import cached_property
from typing import Any

import grpc
from google.protobuf import duration_pb2, struct_pb2
from google.protobuf.json_format import ParseDict

from agentd.v1 import schedules_pb2 as pb
from agentd.v1 import schedules_pb2_grpc as pb_grpc


def trigger_draft(
    goal: str,
    *,
    agent: str = "",
    context: Mapping[str, Any] | None = None,
    token_budget: int = 0,
    spend_limit: int = 0,
    labels: Mapping[str, str] | None = None,
    display_name: str = "",
) -> pb.Trigger:
    """What `create_trigger` sends: each delivery starts a task of `goal` as `agent`,
    with `context` (and the delivery's body under `trigger.body`); `spend_limit`: what each
    may spend on model calls, in micro-units of the server's currency (0: no limit of its
    own)."""
    struct = struct_pb2.Struct()
    ParseDict(dict(context or {}), struct)
    task = pb.ScheduledTask(
        agent=agent,
        goal=goal,
        context=struct,
        token_budget=token_budget,
        spend_limit=spend_limit,
        labels=dict(labels or {}),
    )
    return pb.Trigger(display_name=display_name, task=task)


def rotate_request(
    trigger_id: str, secret: str = "", previous_secret_ttl: timedelta | None = None
) -> pb.RotateTriggerSecretRequest:
    request = pb.RotateTriggerSecretRequest(id=trigger_id, secret=secret)
    if previous_secret_ttl is not None:
        ttl = duration_pb2.Duration()
        ttl.FromTimedelta(previous_secret_ttl)
        request.previous_secret_ttl.CopyFrom(ttl)
    return request


class TriggerMethods:
    _channel: grpc.aio.Channel

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    @cached_property
    def _triggers(self) -> pb_grpc.TriggerServiceStub:
        return pb_grpc.TriggerServiceStub(self._channel)

    async def create_trigger(
        self, trigger: pb.Trigger, *, secret: str = "", timeout: float | None = None
    ) -> pb.Trigger:
        """A trigger of your tenant (`trigger_draft` builds one) running as you; the answer
        holds its signing secret (yours, `whsec_...`, or one made for it), shown only now."""
        request = pb.CreateTriggerRequest(trigger=trigger, secret=secret)
        made: pb.Trigger = await self._unary(self._triggers.CreateTrigger, request, timeout)
        return made

    async def get_trigger(self, trigger_id: str, *, timeout: float | None = None) -> pb.Trigger:
        request = pb.GetTriggerRequest(id=trigger_id)
        found: pb.Trigger = await self._unary(self._triggers.GetTrigger, request, timeout)
        return found

    async def list_triggers(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> pb.ListTriggersResponse:
        request = pb.ListTriggersRequest(page_size=page_size, page_token=page_token)
        page: pb.ListTriggersResponse = await self._unary(
            self._triggers.ListTriggers, request, timeout
        )
        return page

    async def delete_trigger(self, trigger_id: str, *, timeout: float | None = None) -> None:
        request = pb.DeleteTriggerRequest(id=trigger_id)
        await self._unary(self._triggers.DeleteTrigger, request, timeout)

    async def rotate_trigger_secret(
        self,
        trigger_id: str,
        *,
        secret: str = "",
        previous_secret_ttl: timedelta | None = None,
        timeout: float | None = None,
    ) -> pb.Trigger:
        """A new signing secret (shown only now); the old one verifies for
        `previous_secret_ttl` more (None: an hour)."""
        request = rotate_request(trigger_id, secret, previous_secret_ttl)
        rotated: pb.Trigger = await self._unary(
            self._triggers.RotateTriggerSecret, request, timeout
        )
        return rotated
