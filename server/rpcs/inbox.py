"""The inbox: what tasks of the caller's tenant wait for a person to do that the caller may
do (answering it is the tasks' RPCs: ApproveToolCall, ProvideInput, ResumeTask), and what
became of each such wait (the inbox's history)."""

from __future__ import annotations

from typing import ClassVar

from agent.scheduling.inbox import Inbox
from agentd.v1 import inbox_pb2
from core.identity import CallContext
from server.calls import unary
from server.convert import inbox as convert
from server.convert import pages
from server.interceptors.audit import note_task
from server.services.action_history import ActionHistory


class InboxRpcs:
    RPCS: ClassVar[tuple[str, ...]] = ("ListPendingActions", "ListActionHistory")

    def __init__(self, inbox: Inbox, history: ActionHistory) -> None:
        self._inbox = inbox
        self._history = history

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

    @unary
    async def ListActionHistory(  # noqa: N802 - gRPC method name
        self, request: inbox_pb2.ListActionHistoryRequest, call: CallContext
    ) -> inbox_pb2.ListActionHistoryResponse:
        query = convert.history_query(request, call.principal.tenant)
        if query.task_id:
            note_task(query.task_id)
        page = await self._history.page(call.principal, query)
        return inbox_pb2.ListActionHistoryResponse(
            entries=[convert.history_entry_to_proto(e) for e in page.items],
            next_page_token=pages.token(page.next),
        )
