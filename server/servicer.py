"""The AgentService servicer: the one object gRPC registers, each of its RPCs served by
the handler of its resource (`server/rpcs/`: tasks, the inbox, artifacts, tools, audit,
grants, agents, conversations, usage, webhooks, traces, replays)."""

from __future__ import annotations

from typing import ClassVar, Protocol, cast

import grpc

from agent.conversations.service import Conversations
from agent.definitions.catalog import Agents
from agent.engine import Engine
from agent.running.artifacts import TaskArtifacts
from agent.scheduling.inbox import Inbox
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from audit.service import AuditLogs
from server.rpcs.agents import AgentRpcs
from server.rpcs.artifacts import ArtifactRpcs
from server.rpcs.audit import AuditRpcs
from server.rpcs.conversations import ConversationRpcs
from server.rpcs.grants import GrantRpcs
from server.rpcs.inbox import InboxRpcs
from server.rpcs.recorded.replays import ReplayRpcs
from server.rpcs.recorded.traces import TraceRpcs
from server.rpcs.tasks import TaskRpcs
from server.rpcs.tool_listing import ToolListing
from server.rpcs.tools import ToolRpcs
from server.rpcs.usage import UsageRpcs
from server.rpcs.webhooks import WebhookRpcs
from server.services.action_history import ActionHistory
from server.services.recorded.replays import ReplayService
from server.services.recorded.traces import TraceService
from server.services.tasks import TaskService
from server.services.usage import UsageService
from server.services.webhooks import WebhookService
from tools.grant_admin import GrantAdmin
from tools.registry import ToolRegistry


class Handler(Protocol):
    RPCS: ClassVar[tuple[str, ...]]
    """The names of the AgentService methods it serves."""


class AgentServicer:
    """agentd.v1.AgentService, its methods taken from `handlers`; ValueError when two
    handlers serve the same method. gRPC reads the methods by name (`register`)."""

    def __init__(self, *handlers: Handler) -> None:
        self.served: dict[str, str] = {}
        for handler in handlers:
            for name in handler.RPCS:
                if name in self.served:
                    raise ValueError(f"{name} is served by {self.served[name]} already")
                self.served[name] = type(handler).__name__
                setattr(self, name, getattr(handler, name))

    def register(self, server: grpc.aio.Server) -> None:
        """Serve the service's methods on `server` (the generated registration reads them
        by name; the generated base class is not ours to subclass: its methods answer
        UNIMPLEMENTED, which none of the service's may)."""
        pb_grpc.add_AgentServiceServicer_to_server(cast(pb_grpc.AgentServiceServicer, self), server)


def agent_servicer(
    engine: Engine,
    registry: ToolRegistry,
    tasks: TaskService,
    audit: AuditLogs,
    grants: GrantAdmin,
    agents: Agents,
    conversations: Conversations,
    artifacts: TaskArtifacts,
    usage: UsageService,
    inbox: Inbox,
    webhooks: WebhookService,
    history: ActionHistory,
    *,
    replays: ReplayService | None = None,
    traces: TraceService | None = None,
    heartbeat_seconds: float = 15.0,
) -> AgentServicer:
    """The servicer over the engine and its collaborators, one handler per resource."""
    return AgentServicer(
        TaskRpcs(engine, tasks, artifacts, heartbeat_seconds=heartbeat_seconds),
        InboxRpcs(inbox, history),
        ArtifactRpcs(artifacts),
        ToolRpcs(registry, ToolListing(registry, agents), engine.guards),
        AuditRpcs(audit),
        GrantRpcs(grants),
        AgentRpcs(agents),
        ConversationRpcs(conversations),
        UsageRpcs(usage),
        WebhookRpcs(webhooks),
        ReplayRpcs(replays or ReplayService(engine)),
        TraceRpcs(traces or TraceService(None)),
    )
