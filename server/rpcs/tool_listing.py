"""Which tools a caller is shown (ListTools): those the registry lets the caller use, and
for an agent, its toolset (`agent.definitions.toolset`): the ones it has, with `ask_user`
when it may ask and its team's tools, as a task of the agent is offered them."""

from __future__ import annotations

from agent.definitions.catalog import Agents
from agent.definitions.selection import narrow, resolve
from agent.definitions.toolset import toolset
from core.identity import CallContext
from records.tools.model import ToolSpec
from tools.registry import ToolRegistry


class ToolListing:
    def __init__(self, registry: ToolRegistry, agents: Agents) -> None:
        self._registry = registry
        self._agents = agents

    async def shown(
        self, call: CallContext, category: str, toolset_name: str, agent_reference: str
    ) -> tuple[list[ToolSpec], set[str]]:
        """The tools shown to `call` (in `category` and `toolset` when given; an agent's
        when `agent_reference` names one), and the names of those unavailable now."""
        listed = self._registry.listing(call, category, toolset_name)
        specs = [tool.spec for tool in listed]
        down = {tool.spec.name for tool in listed if tool.unavailable}
        if not agent_reference:
            return specs, down
        tenant = call.principal.tenant
        agent = await resolve(self._agents, tenant, agent_reference)
        narrowed = narrow(agent, (), {s.name: s for s in specs})
        return (await toolset(self._agents, tenant, agent, narrowed)).only(
            category, toolset_name
        ), down
