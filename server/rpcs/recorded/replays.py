"""ReplayTask: a recorded task's input rerun as another agent version, its tool calls
answered from the recording (`server.services.recorded.replays`)."""

from __future__ import annotations

from typing import ClassVar

from agentd.v1 import replays_pb2, tasks_pb2
from core.identity import CallContext
from server.calls import unary
from server.convert import tasks as convert_tasks
from server.convert.recorded import replays as convert
from server.interceptors.audit import note_task
from server.rpcs.common import required_id
from server.services.recorded.replays import ReplayService


class ReplayRpcs:
    RPCS: ClassVar[tuple[str, ...]] = ("ReplayTask",)

    def __init__(self, replays: ReplayService) -> None:
        self._replays = replays

    @unary
    async def ReplayTask(  # noqa: N802 - gRPC method name
        self, request: replays_pb2.ReplayTaskRequest, call: CallContext
    ) -> tasks_pb2.Task:
        required_id(request.task_id, "task_id")
        task = await self._replays.replay(convert.replay_request(request), call)
        note_task(task.task_id)
        return convert_tasks.task_to_proto(task)
