"""The agent methods of `AgentClient` (a mixin: the client supplies the channel and the
error mapping)."""

from __future__ import annotations

from typing import Any

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import agents_pb2


class AgentMethods:
    _stub: pb_grpc.AgentServiceStub

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

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
