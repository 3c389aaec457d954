"""Which agent a request runs as, and what that agent changes about it.

The request names an agent (`id` or `id@version`); `agent.definitions.catalog.Agents` gives its
definition for the caller's tenant. The agent narrows the caller's tools to its own (a request that
names a tool outside them is refused), and fills in what the request leaves
unset: mode, iteration limit, token budget and time limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from agent.definitions.catalog import Agents
from core.errors import AgentNotFoundError, FieldViolation, InvalidArgumentError
from records.agents.definition import AgentDefinition, AgentVersion, split_reference
from records.agents.knowledge_keys import scoped_specs
from records.execution import ExecutionMode
from records.requests import TaskRequest
from records.tools.model import ToolSpec


async def resolve(agents: Agents | None, tenant: str, reference: str) -> AgentDefinition | None:
    """The agent `reference` names for `tenant` (None for ""); as `lookup` otherwise."""
    return (await lookup(agents, tenant, reference)).agent if reference else None


async def lookup(agents: Agents | None, tenant: str, reference: str) -> AgentVersion:
    """The agent version `reference` (`id` or `id@version`) names for `tenant`;
    AgentNotFoundError when none is available, InvalidArgumentError when the reference
    is malformed."""
    try:
        agent_id, version = split_reference(reference)
    except ValueError as bad:
        raise InvalidArgumentError([FieldViolation("agent", str(bad))]) from None
    found = await agents.find(tenant, agent_id, version) if agents is not None else None
    if found is None:
        raise AgentNotFoundError(reference)
    return found


def narrow(
    agent: AgentDefinition | None, requested: tuple[str, ...], specs: Mapping[str, ToolSpec]
) -> dict[str, ToolSpec]:
    """The tools a task of `agent` may use: those of `specs` (what the caller may use, or
    asked for) that the agent has, as the agent is shown them (`search_knowledge` listing
    its knowledge bases). InvalidArgumentError for a requested tool it has not."""
    if agent is None:
        return dict(specs)
    if not agent.tools:
        return scoped_specs(specs, agent.knowledge)
    refused = [
        FieldViolation(f"tools[{index}]", f"is not among the tools of agent {agent.agent_id!r}")
        for index, name in enumerate(requested)
        if name in specs and not agent.allows(name, specs[name].category)
    ]
    if refused:
        raise InvalidArgumentError(refused)
    allowed = {name: spec for name, spec in specs.items() if agent.allows(name, spec.category)}
    return scoped_specs(allowed, agent.knowledge)


def with_defaults(request: TaskRequest, agent: AgentDefinition | None) -> TaskRequest:
    """`request` with what it leaves unset taken from the agent."""
    if agent is None:
        return request
    mode = request.mode
    if mode is ExecutionMode.AUTO and agent.mode is not None and request.plan is None:
        mode = agent.mode
    return replace(
        request,
        mode=mode,
        max_iterations=request.max_iterations or agent.max_iterations,
        token_budget=request.token_budget or agent.token_budget,
        timeout_seconds=request.timeout_seconds or agent.task_timeout_seconds,
    )
