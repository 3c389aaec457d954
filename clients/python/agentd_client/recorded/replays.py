"""The replay method of `AgentClient` (a mixin: the client supplies the channel and the
error mapping): ReplayTask reruns a recorded task's input as another agent version, its
tool calls answered from the recording."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import replays_pb2, tasks_pb2

ReplayToolsName = Literal["recorded", "read_only"]
"""How a replay treats tool calls (`ReplayTools`): answered from the recording only, or
also read-only tools run live when no recording matches."""

REPLAY_TOOLS: dict[str, replays_pb2.ReplayTools.ValueType] = {
    "recorded": replays_pb2.REPLAY_TOOLS_RECORDED,
    "read_only": replays_pb2.REPLAY_TOOLS_READ_ONLY,
}


def replay_request(
    task_id: str,
    agent: str,
    tools: ReplayToolsName,
    labels: Mapping[str, str] | None,
    idempotency_key: str,
) -> replays_pb2.ReplayTaskRequest:
    if tools not in REPLAY_TOOLS:
        raise ValueError(f"tools must be one of {sorted(REPLAY_TOOLS)}, not {tools!r}")
    return replays_pb2.ReplayTaskRequest(
        task_id=task_id,
        agent=agent,
        tools=REPLAY_TOOLS[tools],
        labels=dict(labels or {}),
        idempotency_key=idempotency_key,
    )


class ReplayMethods:
    _stub: pb_grpc.AgentServiceStub

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    async def replay_task(
        self,
        task_id: str,
        *,
        agent: str = "",
        tools: ReplayToolsName = "recorded",
        labels: Mapping[str, str] | None = None,
        idempotency_key: str = "",
        timeout: float | None = None,
    ) -> tasks_pb2.Task:
        """Rerun the recorded task `task_id` as `agent` (`id` or `id@version`; empty: its
        own agent's current version) as a new task (labelled `agentd.replay_of`), its tool
        calls answered from the recording; nothing that writes runs. Its `replay` says,
        once it ended, where it first did other than the recording. Raises
        TraceNotFoundError when the recording's trace is no longer kept."""
        request = replay_request(task_id, agent, tools, labels, idempotency_key)
        task: tasks_pb2.Task = await self._unary(self._stub.ReplayTask, request, timeout)
        return task
