"""The conversation methods of the synchronous `AgentClient` (a mixin, as in the async
client)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import conversations_pb2 as cpb


class SyncConversationMethods:
    _stub: pb_grpc.AgentServiceStub

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    def create_conversation(
        self,
        title: str = "",
        *,
        labels: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> cpb.Conversation:
        """A new, empty conversation; pass its `conversation_id` to `execute`."""
        request = cpb.CreateConversationRequest(title=title, labels=dict(labels or {}))
        created: cpb.Conversation = self._unary(self._stub.CreateConversation, request, timeout)
        return created

    def get_conversation(
        self,
        conversation_id: str,
        *,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> cpb.GetConversationResponse:
        """A conversation and one page of its messages, oldest first."""
        request = cpb.GetConversationRequest(
            conversation_id=conversation_id, page_size=page_size, page_token=page_token
        )
        found: cpb.GetConversationResponse = self._unary(
            self._stub.GetConversation, request, timeout
        )
        return found

    def list_conversations(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> cpb.ListConversationsResponse:
        """One page of your conversations, newest first."""
        request = cpb.ListConversationsRequest(page_size=page_size, page_token=page_token)
        listed: cpb.ListConversationsResponse = self._unary(
            self._stub.ListConversations, request, timeout
        )
        return listed

    def delete_conversation(self, conversation_id: str, *, timeout: float | None = None) -> None:
        request = cpb.DeleteConversationRequest(conversation_id=conversation_id)
        self._unary(self._stub.DeleteConversation, request, timeout)

    def fork_conversation(
        self,
        conversation_id: str,
        *,
        after_turn: int | None = None,
        after_task_id: str | None = None,
        title: str = "",
        labels: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> cpb.Conversation:
        """A new conversation sharing this one's turns 1 to `after_turn` (or to the turn of
        task `after_task_id`; give exactly one), with the summary as it stood there. Its
        title and labels are this one's unless given. ConversationBusyError while a task of
        the conversation runs or waits."""
        request = cpb.ForkConversationRequest(
            conversation_id=conversation_id, title=title, labels=dict(labels or {})
        )
        if after_turn is not None:
            request.after_turn = after_turn
        if after_task_id is not None:
            request.after_task_id = after_task_id
        fork: cpb.Conversation = self._unary(self._stub.ForkConversation, request, timeout)
        return fork

    def rewind_conversation(
        self,
        conversation_id: str,
        *,
        after_turn: int | None = None,
        after_task_id: str | None = None,
        timeout: float | None = None,
    ) -> cpb.Conversation:
        """Take the turns after `after_turn` (0: all of them), or after the turn of task
        `after_task_id`, out of what the conversation's next tasks are sent; they stay in
        its history, marked `rewound`. ConversationBusyError while a task of it runs or
        waits."""
        request = cpb.RewindConversationRequest(conversation_id=conversation_id)
        if after_turn is not None:
            request.after_turn = after_turn
        if after_task_id is not None:
            request.after_task_id = after_task_id
        rewound: cpb.Conversation = self._unary(self._stub.RewindConversation, request, timeout)
        return rewound
