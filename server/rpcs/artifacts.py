"""Artifacts: what a task's agents wrote, read back by name and version."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from typing import ClassVar

from agent.running.artifacts import TaskArtifacts
from agentd.v1 import artifacts_pb2
from core.errors import FieldViolation, InvalidArgumentError
from core.identity import CallContext
from server.calls import stream, unary
from server.convert import artifacts as convert_artifacts
from server.interceptors.audit import note_task
from server.rpcs.common import required_id


class ArtifactRpcs:
    RPCS: ClassVar[tuple[str, ...]] = ("GetArtifact", "ReadArtifact")

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

    @stream
    async def ReadArtifact(  # noqa: N802 - gRPC method name
        self, request: artifacts_pb2.ReadArtifactRequest, call: CallContext
    ) -> AsyncIterator[artifacts_pb2.ArtifactChunk]:
        task_id = required_id(request.task_id, "task_id")
        size = self._artifacts.piece_bytes(chunk_size(request.chunk_bytes))
        note_task(task_id)
        tenant = call.principal.tenant
        version = request.version if request.HasField("version") else None
        space, info = await self._artifacts.describe(tenant, task_id, request.name, version)
        offset = min(request.offset, info.size)
        digest = hashlib.sha256()
        at = 0
        while at < offset:  # what comes before the offset counts toward the digest
            piece = await self._artifacts.read_range(
                tenant, space, info, at, min(size, offset - at)
            )
            digest.update(piece)
            at += len(piece)
        first = True
        while True:
            piece = await self._artifacts.read_range(tenant, space, info, offset, size)
            digest.update(piece)
            last = offset + len(piece) >= info.size
            chunk = artifacts_pb2.ArtifactChunk(
                name=info.name, version=info.version, offset=offset, data=piece, last=last
            )
            if first:
                convert_artifacts.describe_chunk(chunk, info)
                first = False
            if last:
                chunk.sha256 = digest.hexdigest()
            yield chunk
            if last:
                return
            offset += len(piece)


MIN_CHUNK_BYTES = 4 * 1024
MAX_CHUNK_BYTES = 1024 * 1024
DEFAULT_CHUNK_BYTES = 256 * 1024


def chunk_size(asked: int) -> int:
    """ReadArtifact's bytes per chunk: `asked`, 0 for the default; INVALID_ARGUMENT outside
    4 KiB to 1 MiB."""
    if asked == 0:
        return DEFAULT_CHUNK_BYTES
    if not MIN_CHUNK_BYTES <= asked <= MAX_CHUNK_BYTES:
        raise InvalidArgumentError(
            [FieldViolation("chunk_bytes", f"must be {MIN_CHUNK_BYTES} to {MAX_CHUNK_BYTES}")]
        )
    return asked
