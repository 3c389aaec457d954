"""Agents: definitions created, updated, read, listed and deleted through the API (agent
files are read from AGENTD_AGENTS_DIR; both live in the same catalog)."""

from __future__ import annotations

from typing import ClassVar

from agent.definitions.catalog import Agents
from agent.definitions.selection import lookup
from agentd.v1 import agents_pb2
from core.errors import FieldViolation, InvalidArgumentError
from core.identity import CallContext
from server.calls import unary
from server.convert import agents as convert_agents
from server.convert import pages
from server.rpcs.common import required_id


class AgentRpcs:
    RPCS: ClassVar[tuple[str, ...]] = (
        "CreateAgent",
        "UpdateAgent",
        "GetAgent",
        "ListAgents",
        "DeleteAgent",
        "PromoteAgentVersion",
    )

    def __init__(self, agents: Agents) -> None:
        self._agents = agents

    @unary
    async def CreateAgent(  # noqa: N802 - gRPC method name
        self, request: agents_pb2.CreateAgentRequest, call: CallContext
    ) -> agents_pb2.Agent:
        data = convert_agents.agent_data(request.agent)
        return convert_agents.agent_to_proto(await self._agents.create(call.principal, data))

    @unary
    async def UpdateAgent(  # noqa: N802
        self, request: agents_pb2.UpdateAgentRequest, call: CallContext
    ) -> agents_pb2.Agent:
        data = convert_agents.agent_data(request.agent)
        return convert_agents.agent_to_proto(await self._agents.update(call.principal, data))

    @unary
    async def GetAgent(  # noqa: N802
        self, request: agents_pb2.GetAgentRequest, call: CallContext
    ) -> agents_pb2.Agent:
        found = await lookup(self._agents, call.principal.tenant, request.agent)
        return convert_agents.agent_to_proto(found)

    @unary
    async def ListAgents(  # noqa: N802
        self, request: agents_pb2.ListAgentsRequest, call: CallContext
    ) -> agents_pb2.ListAgentsResponse:
        size = pages.page_size(request.page_size)
        after = pages.key_cursor(request.page_token)
        page = await self._agents.list(call.principal.tenant, after, size=size)
        return agents_pb2.ListAgentsResponse(
            agents=[convert_agents.agent_to_proto(v) for v in page.items],
            next_page_token=pages.token(page.next),
        )

    @unary
    async def DeleteAgent(  # noqa: N802
        self, request: agents_pb2.DeleteAgentRequest, call: CallContext
    ) -> agents_pb2.DeleteAgentResponse:
        await self._agents.delete(call.principal, required_id(request.id, "id"))
        return agents_pb2.DeleteAgentResponse()

    @unary
    async def PromoteAgentVersion(  # noqa: N802
        self, request: agents_pb2.PromoteAgentVersionRequest, call: CallContext
    ) -> agents_pb2.Agent:
        agent_id = required_id(request.agent_id, "agent_id")
        if not 0 < request.version < 2**31:
            problem = "is required: a version from 1 to 2147483647"
            raise InvalidArgumentError([FieldViolation("version", problem)])
        promoted = await self._agents.promote(
            call.principal, agent_id, request.version, request.eval_run_id
        )
        return convert_agents.agent_to_proto(promoted)
