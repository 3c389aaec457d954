"""One A2A agent per agentd agent: its card names the agent (the interfaces' `tenant`),
what it can do for the caller (a skill per tool the caller may use with it), how to
authenticate, and the resume extension (`agentd-resume-after`)."""

from __future__ import annotations

from dataclasses import dataclass

from a2a.types import a2a_pb2
from google.protobuf import struct_pb2

from agent.definitions.catalog import Agents
from agent.definitions.selection import narrow, resolve
from agent.definitions.toolset import toolset
from agent.inputs.checks import INPUT_TYPES
from core.identity import CallContext
from records.agents.definition import AgentDefinition
from tools.registry import ToolRegistry

PROTOCOL_VERSION = "1.0"
RESUME_EXTENSION = "https://github.com/agentd/agentd/blob/main/docs/a2a.md#resume"
RESUME_HEADER = "agentd-resume-after"
"""The request header (gRPC metadata) SubscribeToTask resumes after: the last
`metadata.agentd.sequence` the client received."""


@dataclass(frozen=True, slots=True)
class Addresses:
    """Where the card says the agent is reached."""

    grpc: str
    """host:port of the gRPC binding."""
    jsonrpc: str = ""
    """URL of the JSON-RPC binding; empty: not served."""


def _resume_extension() -> a2a_pb2.AgentExtension:
    params = struct_pb2.Struct()
    params.update({"header": RESUME_HEADER, "position": "metadata.agentd.sequence"})
    return a2a_pb2.AgentExtension(
        uri=RESUME_EXTENSION,
        description=(
            f"SubscribeToTask with the request header {RESUME_HEADER}: N replays every "
            "update after position N of the task's log (each update carries its position "
            "in metadata.agentd.sequence), so a client that lost its stream, on any "
            "replica, gets what it missed and nothing twice."
        ),
        required=False,
        params=params,
    )


class CardMaker:
    """Agent cards as a caller sees them."""

    def __init__(
        self,
        registry: ToolRegistry,
        agents: Agents,
        addresses: Addresses,
        *,
        auth: bool,
        organization: str,
    ) -> None:
        self._registry = registry
        self._agents = agents
        self.addresses = addresses
        """Set again once the server listens (its port)."""
        self._auth = auth
        self._organization = organization

    async def card(self, call: CallContext | None, reference: str) -> a2a_pb2.AgentCard:
        """The card of agent `reference` ("" the default agent); with no caller (the public
        card of an authenticated server) it lists no skills: GetExtendedAgentCard does,
        those the caller may use."""
        tenant = call.principal.tenant if call is not None else "default"
        agent = await resolve(self._agents, tenant, reference) if reference else None
        name = agent.agent_id if agent is not None else "agentd"
        description = (agent.description if agent is not None else "") or (
            "An agentd agent: give it a task in a message; it plans, calls tools and answers."
        )
        card = a2a_pb2.AgentCard(
            name=name,
            description=description,
            version=str(agent.version) if agent is not None else "1",
            provider=a2a_pb2.AgentProvider(organization=self._organization, url=""),
            capabilities=a2a_pb2.AgentCapabilities(
                streaming=True,
                push_notifications=True,
                extended_agent_card=True,
                extensions=[_resume_extension()],
            ),
            # File parts are taken as the task's input parts (`agent.inputs`).
            default_input_modes=["text/plain", "application/json", *INPUT_TYPES],
            default_output_modes=["text/plain"],
        )
        for binding, url in (("GRPC", self.addresses.grpc), ("JSONRPC", self.addresses.jsonrpc)):
            if url:
                card.supported_interfaces.append(
                    a2a_pb2.AgentInterface(
                        url=url,
                        protocol_binding=binding,
                        tenant=reference,
                        protocol_version=PROTOCOL_VERSION,
                    )
                )
        if self._auth:
            _declare_bearer(card)
        if call is not None:
            card.skills.extend(await self._skills(call, agent))
        return card

    async def _skills(
        self, call: CallContext, agent: AgentDefinition | None
    ) -> list[a2a_pb2.AgentSkill]:
        """A skill per tool the caller may use with the agent: the agent's toolset
        (`agent.definitions.toolset`), as ListTools shows it and a task is offered it."""
        specs = {t.spec.name: t.spec for t in self._registry.listing(call)}
        narrowed = narrow(agent, (), specs)
        tools = await toolset(self._agents, call.principal.tenant, agent, narrowed)
        return [
            a2a_pb2.AgentSkill(
                id=spec.name,
                name=spec.name,
                description=spec.description or spec.name,
                tags=[spec.category or "tool"],
            )
            for spec in tools.only()
        ]


def _declare_bearer(card: a2a_pb2.AgentCard) -> None:
    """The card says: send `authorization: Bearer <API key or JWT>`."""
    card.security_schemes["bearer"].http_auth_security_scheme.CopyFrom(
        a2a_pb2.HTTPAuthSecurityScheme(
            scheme="Bearer",
            bearer_format="agentd API key or JWT",
            description="authorization: Bearer <API key or JWT>",
        )
    )
    requirement = a2a_pb2.SecurityRequirement()
    requirement.schemes["bearer"].CopyFrom(a2a_pb2.StringList())
    card.security_requirements.append(requirement)
