"""Every AgentService method is served by exactly one per-resource handler
(server/rpcs/), and the servicer refuses two handlers for one method."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from agentd.v1 import agent_service_pb2
from server.rpcs.agents import AgentRpcs
from server.rpcs.artifacts import ArtifactRpcs
from server.rpcs.audit import AuditRpcs
from server.rpcs.conversations import ConversationRpcs
from server.rpcs.grants import GrantRpcs
from server.rpcs.inbox import InboxRpcs
from server.rpcs.recorded.replays import ReplayRpcs
from server.rpcs.recorded.traces import TraceRpcs
from server.rpcs.tasks import TaskRpcs
from server.rpcs.tools import ToolRpcs
from server.rpcs.usage import UsageRpcs
from server.rpcs.webhooks import WebhookRpcs
from server.servicer import AgentServicer

HANDLERS = (
    TaskRpcs,
    InboxRpcs,
    ArtifactRpcs,
    ToolRpcs,
    AuditRpcs,
    GrantRpcs,
    AgentRpcs,
    ConversationRpcs,
    UsageRpcs,
    WebhookRpcs,
    ReplayRpcs,
    TraceRpcs,
)


def test_every_method_of_the_service_has_exactly_one_handler() -> None:
    methods = agent_service_pb2.DESCRIPTOR.services_by_name["AgentService"].methods_by_name
    served = [name for handler in HANDLERS for name in handler.RPCS]
    assert sorted(served) == sorted(methods)  # each once, none missing, none extra
    for handler in HANDLERS:
        for name in handler.RPCS:
            assert callable(getattr(handler, name)), f"{handler.__name__}.{name}"


def test_two_handlers_for_one_method_are_refused() -> None:
    class First:
        RPCS: ClassVar[tuple[str, ...]] = ("GetTask",)

        async def GetTask(self, request: Any, context: Any) -> None:
            return None

    with pytest.raises(ValueError, match="GetTask is served by First already"):
        AgentServicer(First(), First())
