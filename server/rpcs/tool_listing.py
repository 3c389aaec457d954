"""Which tools a caller is shown (ListTools): those the registry lets the caller use, and
for an agent, the ones it has, with `ask_user` when it may ask and its team's
delegation tools."""

from __future__ import annotations

from agent.definitions.catalog import Agents
from agent.definitions.selection import narrow, resolve
from agent.scheduling.intake import delegates_of
from agent.teams.delegation import CATEGORY, team_tools
from agent.tool_use.questions import ASK_USER
from core.identity import CallContext
from records.tools.model import ToolSpec
from tools.registry import ToolRegistry


class ToolListing:
    def __init__(self, registry: ToolRegistry, agents: Agents) -> None:
        self._registry = registry
        self._agents = agents

    async def shown(
        self, call: CallContext, category: str, toolset: str, agent_reference: str
    ) -> tuple[list[ToolSpec], set[str]]:
        """The tools shown to `call` (in `category` and `toolset` when given; an agent's
        when `agent_reference` names one), and the names of those unavailable now."""
        listed = self._registry.listing(call, category, toolset)
        specs = [tool.spec for tool in listed]
        down = {tool.spec.name for tool in listed if tool.unavailable}
        if not agent_reference:
            return specs, down
        tenant = call.principal.tenant
        agent = await resolve(self._agents, tenant, agent_reference)
        specs = list(narrow(agent, (), {s.name: s for s in specs}).values())
        if agent is not None and agent.ask_user and category in ("", "conversation"):
            specs = sorted([*specs, ASK_USER], key=lambda s: s.name)
        if category in ("", CATEGORY) and not toolset:
            delegates = await delegates_of(self._agents, tenant, agent)
            panels = agent.panels if agent is not None else ()
            team = team_tools(delegates, panels).values()
            specs = sorted([*specs, *team], key=lambda s: s.name)
        return specs, down
