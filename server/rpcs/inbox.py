"""The inbox: what tasks of the caller's tenant wait for a person to do that the caller may
do (answering it is the tasks' RPCs: ApproveToolCall, ProvideInput, ResumeTask)."""

from __future__ import annotations

from typing import ClassVar

from agent.scheduling.inbox import Inbox
from agentd.v1 import inbox_pb2
from core.identity import CallContext
from server.calls import unary
from server.convert import inbox as convert
from server.convert import pages


class InboxRpcs:
    RPCS: ClassVar[tuple[str, ...]] = ("ListPendingActions",)

    def __init__(self, inbox: Inbox) -> None:
        self._inbox = inbox

    @unary
    async def ListPendingActions(  # noqa: N802 - gRPC method name
        self, request: inbox_pb2.ListPendingActionsRequest, call: CallContext
    ) -> inbox_pb2.ListPendingActionsResponse:
        kinds = convert.kinds_from_proto(request.kinds)
        size = pages.page_size(request.page_size)
        query = convert.pending_query(request, call.principal.tenant, size)
        page = await self._inbox.pending(call.principal, query, kinds)
        return inbox_pb2.ListPendingActionsResponse(
            actions=[convert.pending_action_to_proto(w) for w in page.items],
            next_page_token=pages.token(page.next),
        )
