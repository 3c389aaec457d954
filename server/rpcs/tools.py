"""Tools: call one directly (CallTool) and list those a caller (or an agent) may use."""

from __future__ import annotations

from typing import ClassVar

from agent.guardrails.runs import Guards
from agentd.v1 import agent_service_pb2 as pb
from core.errors import FieldViolation, InvalidArgumentError
from core.identity import CallContext
from core.names import tool_name_problem
from records.tools.invocation import Invocation
from server.calls import unary
from server.convert import tasks as convert
from server.rpcs.tool_listing import ToolListing
from tools.registry import ToolRegistry


class ToolRpcs:
    RPCS: ClassVar[tuple[str, ...]] = ("CallTool", "ListTools")

    def __init__(
        self, registry: ToolRegistry, listing: ToolListing, guards: Guards | None = None
    ) -> None:
        self._registry = registry
        self._listing = listing
        self._guards = guards

    @unary
    async def CallTool(  # noqa: N802 - gRPC method name
        self, request: pb.CallToolRequest, call: CallContext
    ) -> pb.CallToolResponse:
        name = request.tool_name
        problem = tool_name_problem(name)
        if problem is not None:  # never looked up, audited or stored as it came
            raise InvalidArgumentError([FieldViolation("tool_name", problem)])
        # The arguments parsed (and redacted) once, here: the call from here on.
        invocation = Invocation.of(name, convert.struct_to_dict(request.arguments))
        bypass = request.bypass_cache
        guard = self._guards.for_call(call) if self._guards is not None else None
        if request.idempotency_key:
            result = await self._registry.call_once(
                invocation, call, request.idempotency_key, bypass_cache=bypass, guard=guard
            )
        else:
            result = await self._registry.invoke(invocation, call, bypass_cache=bypass, guard=guard)
        return convert.tool_result_to_proto(result)

    @unary
    async def ListTools(  # noqa: N802
        self, request: pb.ListToolsRequest, call: CallContext
    ) -> pb.ListToolsResponse:
        specs, down = await self._listing.shown(
            call, request.category, request.toolset, request.agent
        )
        return pb.ListToolsResponse(
            tools=[convert.tool_to_proto(s, unavailable=s.name in down) for s in specs]
        )
