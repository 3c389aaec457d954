"""The tools a task of an agent is offered, built in one place for the engine, the Plan
RPC, ListTools for an agent and the A2A agent card.

A task's registry tools are those its request and its caller may use, narrowed to its
agent's (`selection.narrow`): the caller of this module has them. The model is offered
them as its agent sees them (`search_knowledge` scoped to the agent's knowledge), with
`ask_user` when the agent may ask, and its team's tools: `agent.<id>` for each delegate
the tenant has and `panel.<name>` for each of its panels.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agent.definitions.catalog import Agents
from agent.teams.delegation import team_tools
from agent.tool_use.questions import ASK_USER
from records.agents.definition import AgentDefinition
from records.agents.knowledge_keys import scoped_specs
from records.tasks import Delegate
from records.tools.model import ToolSpec


@dataclass(frozen=True, slots=True)
class Toolset:
    """A task's tools: those of the registry, the delegates it may hand work to, and all
    the model is offered."""

    specs: dict[str, ToolSpec]
    """The registry's tools the task may call (what its record names)."""
    delegates: tuple[Delegate, ...]
    """The agents it may hand work to that the tenant has."""
    offered: dict[str, ToolSpec]
    """Every tool its model is offered: `specs` as the agent sees them, `ask_user`, the
    team's tools."""

    def only(self, category: str = "", toolset: str = "") -> list[ToolSpec]:
        """The offered tools in `category` and `toolset` (either empty: any), by name."""
        return sorted(
            (
                spec
                for spec in self.offered.values()
                if (not category or spec.category == category)
                and (not toolset or spec.toolset == toolset)
            ),
            key=lambda spec: spec.name,
        )


def offered(
    agent: AgentDefinition | None,
    specs: Mapping[str, ToolSpec],
    delegates: tuple[Delegate, ...],
    *,
    team: bool = True,
) -> dict[str, ToolSpec]:
    """What a task of `agent` with the registry tools `specs` is offered; with `team`
    False (no delegation where it runs), no team tools."""
    if agent is None:
        return dict(specs)
    tools = scoped_specs(specs, agent.knowledge)
    if agent.ask_user:  # the agent may ask the caller
        tools[ASK_USER.name] = ASK_USER
    if team:
        tools.update(team_tools(delegates, agent.panels))
    return tools


async def delegates_of(
    agents: Agents | None, tenant: str, agent: AgentDefinition | None
) -> tuple[Delegate, ...]:
    """The agent's delegates the tenant has, each with its description (what the model is
    told of it); one the tenant does not have is not offered."""
    if agent is None or agents is None:
        return ()
    found: list[Delegate] = []
    for agent_id in agent.delegates:
        version = await agents.find(tenant, agent_id)
        if version is not None:
            described = version.agent.description or f"the agent {agent_id}"
            found.append(Delegate(agent_id, described))
    for remote in agent.remote_delegates:
        described = remote.description or f"the remote agent {remote.agent_id}"
        found.append(Delegate(remote.agent_id, described))
    return tuple(found)


async def toolset(
    agents: Agents | None,
    tenant: str,
    agent: AgentDefinition | None,
    specs: Mapping[str, ToolSpec],
) -> Toolset:
    """The toolset of a task of `agent` for `tenant` whose registry tools are `specs`."""
    delegates = await delegates_of(agents, tenant, agent)
    return Toolset(dict(specs), delegates, offered(agent, specs, delegates))
