"""The TriggerService servicer: a tenant's inbound triggers. Thin: context, conversion,
one call into `server.services.triggers.manage`. (Deliveries come to the HTTP door,
`server.triggers`.)"""

from __future__ import annotations

from agentd.v1 import schedules_pb2 as pb
from agentd.v1 import schedules_pb2_grpc as pb_grpc
from core.identity import CallContext
from server.calls import unary
from server.convert import pages
from server.convert.automation import triggers as convert
from server.rpcs.common import required_id
from server.services.triggers.manage import TriggerService


class TriggerServicer(pb_grpc.TriggerServiceServicer):
    def __init__(self, triggers: TriggerService) -> None:
        self._triggers = triggers

    @unary
    async def CreateTrigger(  # noqa: N802 - gRPC method name
        self, request: pb.CreateTriggerRequest, call: CallContext
    ) -> pb.Trigger:
        draft = convert.trigger_from_proto(request.trigger)
        trigger, secret = await self._triggers.create(call.principal, draft, request.secret)
        return convert.trigger_to_proto(trigger, secret)

    @unary
    async def GetTrigger(self, request: pb.GetTriggerRequest, call: CallContext) -> pb.Trigger:  # noqa: N802
        trigger_id = required_id(request.id, "id")
        return convert.trigger_to_proto(await self._triggers.get(call.principal, trigger_id))

    @unary
    async def ListTriggers(  # noqa: N802
        self, request: pb.ListTriggersRequest, call: CallContext
    ) -> pb.ListTriggersResponse:
        size = pages.page_size(request.page_size)
        after = pages.time_key_cursor(request.page_token)
        page = await self._triggers.list(call.principal, size, after)
        return pb.ListTriggersResponse(
            triggers=[convert.trigger_to_proto(t) for t in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def DeleteTrigger(  # noqa: N802
        self, request: pb.DeleteTriggerRequest, call: CallContext
    ) -> pb.DeleteTriggerResponse:
        await self._triggers.delete(call.principal, required_id(request.id, "id"))
        return pb.DeleteTriggerResponse()

    @unary
    async def RotateTriggerSecret(  # noqa: N802
        self, request: pb.RotateTriggerSecretRequest, call: CallContext
    ) -> pb.Trigger:
        trigger_id = required_id(request.id, "id")
        ttl = None
        if request.HasField("previous_secret_ttl"):
            ttl = request.previous_secret_ttl.ToTimedelta().total_seconds()
        trigger, secret = await self._triggers.rotate(
            call.principal, trigger_id, request.secret, ttl
        )
        return convert.trigger_to_proto(trigger, secret)
