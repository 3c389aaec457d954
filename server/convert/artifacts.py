"""Artifacts between their domain form and protobuf: summaries on a Task, one's content."""

from __future__ import annotations

from collections.abc import Iterable

from agentd.v1 import artifacts_pb2
from server.convert.tasks import to_timestamp
from stores.artifacts.base import Artifact, ArtifactInfo


def summary_to_proto(info: ArtifactInfo) -> artifacts_pb2.ArtifactSummary:
    return artifacts_pb2.ArtifactSummary(
        name=info.name,
        version=info.version,
        media_type=info.media_type,
        size_bytes=info.size,
        update_time=to_timestamp(info.created_at),
        writer_task_id=info.writer_task_id,
    )


def summaries_to_proto(infos: Iterable[ArtifactInfo]) -> list[artifacts_pb2.ArtifactSummary]:
    return [summary_to_proto(info) for info in infos]


def content_to_proto(found: Artifact) -> artifacts_pb2.ArtifactContent:
    info, text = found.info, found.text
    return artifacts_pb2.ArtifactContent(
        name=info.name,
        version=info.version,
        media_type=info.media_type,
        content=found.content,
        text=text or "",
        is_text=text is not None,
        size_bytes=info.size,
        writer_task_id=info.writer_task_id,
        create_time=to_timestamp(info.created_at),
    )


def describe_chunk(chunk: artifacts_pb2.ArtifactChunk, info: ArtifactInfo) -> None:
    """Set the version's description on the first chunk of a ReadArtifact stream."""
    chunk.media_type = info.media_type
    chunk.size_bytes = info.size
    chunk.writer_task_id = info.writer_task_id
    chunk.create_time.CopyFrom(to_timestamp(info.created_at))
