"""Artifacts: what one task tree may keep (`tools.builtin.artifacts`), and the files and
images a task's input may carry (`agent.inputs`), each kept as one of its artifacts."""

from __future__ import annotations

from pydantic import Field

from server.settings.base import MiB, Section


class ArtifactSettings(Section):
    artifact_max_bytes: int = Field(
        8 * MiB,
        gt=0,
        le=64 * MiB,
        description="bytes of content one artifact version may hold (read back in chunks "
        "with ReadArtifact; GetArtifact answers those that fit one message)",
    )
    artifact_max_per_task: int = Field(
        100, gt=0, description="artifacts (names) one task tree may hold"
    )
    artifact_max_versions: int = Field(100, gt=0, description="versions one artifact may have")
    input_part_max_bytes: int = Field(
        8 * MiB,
        gt=0,
        le=64 * MiB,
        description="bytes one input part of a task (ExecuteRequest.parts) may hold, given or "
        "fetched; all of a request's parts travel in one message "
        "(AGENTD_MAX_MESSAGE_BYTES), and each is kept as an artifact (at most "
        "AGENTD_ARTIFACT_MAX_BYTES)",
    )
    input_url_max_bytes: int = Field(
        8 * MiB, gt=0, le=64 * MiB, description="bytes an input part's URL may answer with"
    )
    input_url_timeout_seconds: float = Field(
        15.0, gt=0, description="time limit of fetching an input part's URL (per phase)"
    )
