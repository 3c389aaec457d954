"""Conversations: created, read page by page with their messages, listed, deleted, forked
and rewound by the end user they belong to."""

from __future__ import annotations

from typing import ClassVar

from agent.conversations.service import Conversations, Point
from agentd.v1 import conversations_pb2 as cpb
from core.identity import CallContext
from records.conversations.model import ConversationQuery
from server.calls import unary
from server.convert import conversations as convert_conversations
from server.convert import pages


class ConversationRpcs:
    RPCS: ClassVar[tuple[str, ...]] = (
        "CreateConversation",
        "GetConversation",
        "ListConversations",
        "DeleteConversation",
        "ForkConversation",
        "RewindConversation",
    )

    def __init__(self, conversations: Conversations) -> None:
        self._conversations = conversations

    @unary
    async def CreateConversation(  # noqa: N802 - gRPC method name
        self, request: cpb.CreateConversationRequest, call: CallContext
    ) -> cpb.Conversation:
        created = await self._conversations.create(
            call.principal, request.title, dict(request.labels)
        )
        return convert_conversations.conversation_to_proto(created)

    @unary
    async def GetConversation(  # noqa: N802
        self, request: cpb.GetConversationRequest, call: CallContext
    ) -> cpb.GetConversationResponse:
        size = pages.page_size(request.page_size)
        after = pages.position_cursor(request.page_token)
        conversation, page, running = await self._conversations.page(
            call.principal, request.conversation_id, after, size
        )
        return cpb.GetConversationResponse(
            conversation=convert_conversations.conversation_to_proto(conversation, running),
            messages=[convert_conversations.message_to_proto(m) for m in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def ListConversations(  # noqa: N802
        self, request: cpb.ListConversationsRequest, call: CallContext
    ) -> cpb.ListConversationsResponse:
        size = pages.page_size(request.page_size)
        query = ConversationQuery(
            call.principal.tenant,
            call.principal.id,
            limit=size,
            after=pages.time_cursor(request.page_token),
        )
        page = await self._conversations.list(query)
        return cpb.ListConversationsResponse(
            conversations=[convert_conversations.conversation_to_proto(c) for c in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def DeleteConversation(  # noqa: N802
        self, request: cpb.DeleteConversationRequest, call: CallContext
    ) -> cpb.DeleteConversationResponse:
        await self._conversations.delete(call.principal, request.conversation_id)
        return cpb.DeleteConversationResponse()

    @unary
    async def ForkConversation(  # noqa: N802
        self, request: cpb.ForkConversationRequest, call: CallContext
    ) -> cpb.Conversation:
        after_turn, after_task_id = convert_conversations.point_of(request)
        fork = await self._conversations.fork(
            call.principal,
            request.conversation_id,
            Point(after_turn, after_task_id),
            request.title,
            dict(request.labels),
        )
        return convert_conversations.conversation_to_proto(fork)

    @unary
    async def RewindConversation(  # noqa: N802
        self, request: cpb.RewindConversationRequest, call: CallContext
    ) -> cpb.Conversation:
        after_turn, after_task_id = convert_conversations.point_of(request)
        rewound = await self._conversations.rewind(
            call.principal, request.conversation_id, Point(after_turn, after_task_id)
        )
        return convert_conversations.conversation_to_proto(rewound)
