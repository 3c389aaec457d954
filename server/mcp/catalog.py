"""The tools an MCP caller is shown: one per agent the caller may use (the tenant's agent
catalog, as ListAgents pages it), named by the agent's id, each taking a `task` and an
optional `context`.

The server's default agent (no agent file: the task runs with every tool the caller may
use, as `StartTask` without an agent does) is the tool `agentd`, as A2A's default card
names it, unless the tenant has an agent of that id.

"May use" is the rule delegation already follows (docs/teams.md): the permission policy
admits the tool `agent.<id>` for the caller. Under AGENTD_TOOL_PERMISSION=deny a caller
needs a grant covering it; a call to an agent it may not use is refused, naming that.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from agent.definitions.catalog import Agents
from agent.teams.delegation import delegate_spec
from core.errors import PermissionDeniedError
from core.identity import CallContext
from records.agents.definition import AgentDefinition
from records.paging import KeyCursor
from server.mcp.files import FILES_SCHEMA
from tools.registry import ToolRegistry

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "task": {"type": "string", "description": "what the agent is asked to do"},
        "context": {
            "type": "object",
            "description": "facts the agent may use (the task's context)",
        },
        "files": FILES_SCHEMA,
    },
    "required": ["task"],
}
"""Every agent tool's input: the task request's `task`, `context` and `files` (its input
parts, `server.mcp.files`)."""

DEFAULT = "agentd"
"""The default agent's tool name (A2A's default card's name)."""
DEFAULT_DESCRIPTION = (
    "agentd's default agent: give it a task; it plans, calls the tools you may use and answers."
)

PAGE = 100
MOST = 1_000
"""At most this many agents are listed (ten catalog pages)."""


class AgentTools:
    """The agents a caller may use, as MCP tools."""

    def __init__(self, agents: Agents, registry: ToolRegistry) -> None:
        self._agents = agents
        self._registry = registry

    def may_use(self, call: CallContext, agent: AgentDefinition) -> bool:
        spec = delegate_spec(agent.agent_id, agent.description)
        return self._registry.policy.decide(call.principal, spec).allowed

    def check(self, call: CallContext, agent: AgentDefinition) -> None:
        """PermissionDeniedError naming the rule when the caller may not use the agent."""
        spec = delegate_spec(agent.agent_id, agent.description)
        decision = self._registry.policy.decide(call.principal, spec)
        if not decision.allowed:
            raise PermissionDeniedError(
                spec.name, spec.permission.name, decision.rule, decision.reason
            )

    async def listed(self, call: CallContext) -> list[types.Tool]:
        tools: list[types.Tool] = []
        after: KeyCursor | None = None
        while len(tools) < MOST:
            page = await self._agents.list(call.principal.tenant, after, size=PAGE)
            tools.extend(_tool(v.agent) for v in page.items if self.may_use(call, v.agent))
            if page.next is None:
                break
            after = page.next
        if all(tool.name != DEFAULT for tool in tools):
            tools.insert(0, _default())
        return tools


def _default() -> types.Tool:
    return types.Tool(
        name=DEFAULT, title=DEFAULT, description=DEFAULT_DESCRIPTION, input_schema=INPUT_SCHEMA
    )


def _tool(agent: AgentDefinition) -> types.Tool:
    description = agent.description or f"The agentd agent {agent.agent_id}."
    return types.Tool(
        name=agent.agent_id,
        title=agent.agent_id,
        description=description,
        input_schema=INPUT_SCHEMA,
    )
