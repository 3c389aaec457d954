"""The conversation and agent methods of `AgentClient` (a mixin: the client supplies the
channel and the error mapping)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import agents_pb2
from agentd.v1 import conversations_pb2 as cpb

BUSY_POLICIES = {
    "reject": cpb.CONVERSATION_BUSY_POLICY_REJECT,
    "enqueue": cpb.CONVERSATION_BUSY_POLICY_ENQUEUE,
    "interrupt": cpb.CONVERSATION_BUSY_POLICY_INTERRUPT,
}
"""The busy policies of `execute(..., busy_policy=...)` by name."""


class ConversationMethods:
    _stub: pb_grpc.AgentServiceStub

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    async def create_conversation(
        self,
        title: str = "",
        *,
        labels: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> cpb.Conversation:
        """A new, empty conversation; pass its `conversation_id` to `execute`."""
        request = cpb.CreateConversationRequest(title=title, labels=dict(labels or {}))
        created: cpb.Conversation = await self._unary(
            self._stub.CreateConversation, request, timeout
        )
        return created

    async def get_conversation(
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
        found: cpb.GetConversationResponse = await self._unary(
            self._stub.GetConversation, request, timeout
        )
        return found

    async def list_conversations(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> cpb.ListConversationsResponse:
        """One page of your conversations, newest first."""
        request = cpb.ListConversationsRequest(page_size=page_size, page_token=page_token)
        listed: cpb.ListConversationsResponse = await self._unary(
            self._stub.ListConversations, request, timeout
        )
        return listed

    async def delete_conversation(
        self, conversation_id: str, *, timeout: float | None = None
    ) -> None:
        request = cpb.DeleteConversationRequest(conversation_id=conversation_id)
        await self._unary(self._stub.DeleteConversation, request, timeout)

    async def create_agent(
        self, agent: agents_pb2.Agent, *, timeout: float | None = None
    ) -> agents_pb2.Agent:
        """Version 1 of a new agent of your tenant (admin role)."""
        request = agents_pb2.CreateAgentRequest(agent=agent)
        created: agents_pb2.Agent = await self._unary(self._stub.CreateAgent, request, timeout)
        return created

    async def update_agent(
        self, agent: agents_pb2.Agent, *, timeout: float | None = None
    ) -> agents_pb2.Agent:
        """The next version of an agent of your tenant (admin role)."""
        request = agents_pb2.UpdateAgentRequest(agent=agent)
        updated: agents_pb2.Agent = await self._unary(self._stub.UpdateAgent, request, timeout)
        return updated

    async def get_agent(self, agent: str, *, timeout: float | None = None) -> agents_pb2.Agent:
        """An agent you may use: `id` (its latest version) or `id@version`."""
        request = agents_pb2.GetAgentRequest(agent=agent)
        found: agents_pb2.Agent = await self._unary(self._stub.GetAgent, request, timeout)
        return found

    async def list_agents(self, *, timeout: float | None = None) -> list[agents_pb2.Agent]:
        request = agents_pb2.ListAgentsRequest()
        listed: agents_pb2.ListAgentsResponse = await self._unary(
            self._stub.ListAgents, request, timeout
        )
        return list(listed.agents)

    async def delete_agent(self, agent_id: str, *, timeout: float | None = None) -> None:
        await self._unary(
            self._stub.DeleteAgent, agents_pb2.DeleteAgentRequest(id=agent_id), timeout
        )
