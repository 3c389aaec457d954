"""Artifacts: what a task's agents wrote, read back by name and version."""

from __future__ import annotations

from typing import ClassVar

from agent.running.artifacts import TaskArtifacts
from agentd.v1 import artifacts_pb2
from core.identity import CallContext
from server.calls import unary
from server.convert import artifacts as convert_artifacts
from server.interceptors.audit import note_task
from server.rpcs.common import required_id


class ArtifactRpcs:
    RPCS: ClassVar[tuple[str, ...]] = ("GetArtifact",)

    def __init__(self, artifacts: TaskArtifacts) -> None:
        self._artifacts = artifacts

    @unary
    async def GetArtifact(  # noqa: N802 - gRPC method name
        self, request: artifacts_pb2.GetArtifactRequest, call: CallContext
    ) -> artifacts_pb2.ArtifactContent:
        task_id = required_id(request.task_id, "task_id")
        note_task(task_id)
        version = request.version if request.HasField("version") else None
        found = await self._artifacts.get(call.principal.tenant, task_id, request.name, version)
        return convert_artifacts.content_to_proto(found)
