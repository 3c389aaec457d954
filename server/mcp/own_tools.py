"""agentd's own tools as MCP tools, when AGENTD_MCP_TOOLS=true: those the caller may use
(ListTools' listing), each named `agentd.<tool>` beside the agents, called through the
same path as the CallTool RPC (the registry's admission: grants, approvals, guardrails,
the tool-call audit). A call needing a person's approval is refused as CallTool refuses
it; run it in a task (an agent tool) to wait for one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp_types as types

from agent.guardrails.runs import Guards
from core.identity import CallContext
from records.tools.invocation import Invocation
from tools.registry import ToolRegistry

PREFIX = "agentd."
"""Own tools' names start with it: an agent id never does (no dot in `AGENT_ID`)."""


class OwnTools:
    def __init__(self, registry: ToolRegistry, guards: Guards | None) -> None:
        self._registry = registry
        self._guards = guards

    def listed(self, call: CallContext) -> list[types.Tool]:
        return [
            types.Tool(
                name=PREFIX + tool.spec.name,
                description=tool.spec.description or tool.spec.name,
                input_schema=dict(tool.spec.parameters) or {"type": "object"},
            )
            for tool in self._registry.listing(call)
            if not tool.unavailable
        ]

    async def call(
        self, call: CallContext, name: str, arguments: Mapping[str, Any] | None
    ) -> types.CallToolResult:
        """The tool's result (isError when it failed); an AgentdError when refused."""
        invocation = Invocation.of(name.removeprefix(PREFIX), dict(arguments or {}))
        guard = self._guards.for_call(call) if self._guards is not None else None
        result = await self._registry.invoke(invocation, call, guard=guard)
        return types.CallToolResult(
            content=[types.TextContent(text=result.text)],
            structured_content=result.data if isinstance(result.data, dict) else None,
            is_error=not result.ok,
        )
