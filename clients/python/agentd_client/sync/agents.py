"""The agent methods of the synchronous `AgentClient` (a mixin, as in the async client)."""

from __future__ import annotations

from typing import Any

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import agents_pb2


class SyncAgentMethods:
    _stub: pb_grpc.AgentServiceStub

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    def create_agent(
        self, agent: agents_pb2.Agent, *, timeout: float | None = None
    ) -> agents_pb2.Agent:
        """Version 1 of a new agent of your tenant (admin role)."""
        request = agents_pb2.CreateAgentRequest(agent=agent)
        created: agents_pb2.Agent = self._unary(self._stub.CreateAgent, request, timeout)
        return created

    def update_agent(
        self, agent: agents_pb2.Agent, *, timeout: float | None = None
    ) -> agents_pb2.Agent:
        """The next version of an agent of your tenant (admin role)."""
        request = agents_pb2.UpdateAgentRequest(agent=agent)
        updated: agents_pb2.Agent = self._unary(self._stub.UpdateAgent, request, timeout)
        return updated

    def get_agent(self, agent: str, *, timeout: float | None = None) -> agents_pb2.Agent:
        """An agent you may use: `id` (its latest version) or `id@version`."""
        request = agents_pb2.GetAgentRequest(agent=agent)
        found: agents_pb2.Agent = self._unary(self._stub.GetAgent, request, timeout)
        return found

    def list_agents(self, *, timeout: float | None = None) -> list[agents_pb2.Agent]:
        """Every agent your tenant may use (all pages): its own, then those from files."""
        found: list[agents_pb2.Agent] = []
        token = ""
        while True:  # ends: the server's last page has no token
            page = self.list_agents_page(page_size=200, page_token=token, timeout=timeout)
            found.extend(page.agents)
            token = page.next_page_token
            if not token:
                return found

    def list_agents_page(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> agents_pb2.ListAgentsResponse:
        """One page of the agents your tenant may use."""
        request = agents_pb2.ListAgentsRequest(page_size=page_size, page_token=page_token)
        listed: agents_pb2.ListAgentsResponse = self._unary(self._stub.ListAgents, request, timeout)
        return listed

    def delete_agent(self, agent_id: str, *, timeout: float | None = None) -> None:
        self._unary(self._stub.DeleteAgent, agents_pb2.DeleteAgentRequest(id=agent_id), timeout)

    def promote_agent_version(
        self,
        agent_id: str,
        version: int,
        *,
        eval_run_id: str = "",
        timeout: float | None = None,
    ) -> agents_pb2.Agent:
        """Make `version` the one the bare id serves (admin role). With the server's
        promotion gate on, an evaluation run of that version must have passed its gate
        (`eval_run_id`, or "" the latest such run): PromotionRefusedError otherwise."""
        request = agents_pb2.PromoteAgentVersionRequest(
            agent_id=agent_id, version=version, eval_run_id=eval_run_id
        )
        promoted: agents_pb2.Agent = self._unary(self._stub.PromoteAgentVersion, request, timeout)
        return promoted
