"""What a task tree's artifacts may hold, from the settings (`tools.builtin.artifacts`)."""

from __future__ import annotations

import structlog

from server.settings import Settings
from tools.builtin.artifacts import ArtifactLimits

log = structlog.get_logger(__name__)

MESSAGE_MARGIN_BYTES = 16 * 1024
"""Room a GetArtifact answer needs besides its content (twice: as bytes and as text)."""


def _max_bytes(settings: Settings) -> int:
    """AGENTD_ARTIFACT_MAX_BYTES, or less when a GetArtifact answer carrying that much
    (the content twice, as bytes and as text) would not fit AGENTD_MAX_MESSAGE_BYTES."""
    fits = max(1, (settings.max_message_bytes - MESSAGE_MARGIN_BYTES) // 2)
    if settings.artifact_max_bytes > fits:
        log.warning(
            "artifacts are capped lower than AGENTD_ARTIFACT_MAX_BYTES, to what "
            "AGENTD_MAX_MESSAGE_BYTES lets GetArtifact send",
            artifact_max_bytes=settings.artifact_max_bytes,
            max_message_bytes=settings.max_message_bytes,
            capped_at=fits,
        )
        return fits
    return settings.artifact_max_bytes


def artifact_limits(settings: Settings) -> ArtifactLimits:
    return ArtifactLimits(
        max_bytes=_max_bytes(settings),
        max_artifacts=settings.artifact_max_per_task,
        max_versions=settings.artifact_max_versions,
    )
