"""The replay method of the synchronous `AgentClient` (a mixin, as in the async client)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import tasks_pb2
from agentd_client.recorded.replays import ReplayToolsName, replay_request


class SyncReplayMethods:
    _stub: pb_grpc.AgentServiceStub

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    def replay_task(
        self,
        task_id: str,
        *,
        agent: str = "",
        tools: ReplayToolsName = "recorded",
        labels: Mapping[str, str] | None = None,
        idempotency_key: str = "",
        timeout: float | None = None,
    ) -> tasks_pb2.Task:
        """As the async client's `replay_task`."""
        request = replay_request(task_id, agent, tools, labels, idempotency_key)
        task: tasks_pb2.Task = self._unary(self._stub.ReplayTask, request, timeout)
        return task
