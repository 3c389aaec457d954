"""Artifacts: what one task tree may keep (`tools.builtin.artifacts`)."""

from __future__ import annotations

from pydantic import Field

from server.settings.base import MiB, Section


class ArtifactSettings(Section):
    artifact_max_bytes: int = Field(
        MiB, gt=0, le=64 * MiB, description="bytes of content one artifact version may hold"
    )
    artifact_max_per_task: int = Field(
        100, gt=0, description="artifacts (names) one task tree may hold"
    )
    artifact_max_versions: int = Field(100, gt=0, description="versions one artifact may have")
