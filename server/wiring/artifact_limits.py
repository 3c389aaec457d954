"""What a task tree's artifacts may hold (`tools.builtin.artifacts`) and what a task's
input parts may be (`agent.inputs`), from the settings."""

from __future__ import annotations

from agent.inputs.checks import InputLimits
from server.settings import Settings
from tools.builtin.artifacts import ArtifactLimits


def artifact_limits(settings: Settings) -> ArtifactLimits:
    """AGENTD_ARTIFACT_MAX_BYTES and the counts. An artifact of any size is read back in
    chunks (ReadArtifact); GetArtifact answers those that fit one message."""
    return ArtifactLimits(
        max_bytes=settings.artifact_max_bytes,
        max_artifacts=settings.artifact_max_per_task,
        max_versions=settings.artifact_max_versions,
    )


def input_limits(settings: Settings) -> InputLimits:
    """AGENTD_INPUT_*: a part is kept as an artifact, so it is held to the artifact size
    too; URL parts reach what `http_request` may (AGENTD_HTTP_ALLOWED_NETWORKS)."""
    most = min(settings.input_part_max_bytes, settings.artifact_max_bytes)
    return InputLimits(
        max_part_bytes=most,
        url_max_bytes=min(settings.input_url_max_bytes, most),
        url_timeout_seconds=settings.input_url_timeout_seconds,
        allowed_networks=tuple(settings.allowed_networks()),
    )
