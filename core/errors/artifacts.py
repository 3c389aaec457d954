"""Errors of artifacts (the named, versioned outputs of a task tree)."""

from __future__ import annotations

from core.errors.base import AgentdError


class ArtifactNotFoundError(AgentdError):
    """The task has no artifact of that name (or not that version of it)."""

    reason = "ARTIFACT_NOT_FOUND"

    def __init__(self, task_id: str, name: str, version: int | None = None) -> None:
        self.task_id = task_id
        self.name = name
        self.version = version
        which = f"version {version} of artifact {name!r}" if version else f"artifact {name!r}"
        metadata = {"task_id": task_id, "name": name}
        if version:
            metadata["version"] = str(version)
        super().__init__(f"task {task_id!r} has no {which}", metadata=metadata)


class ArtifactTooLargeError(AgentdError):
    """A version is too large for one GetArtifact answer: ReadArtifact reads it in chunks."""

    reason = "ARTIFACT_TOO_LARGE"

    def __init__(self, name: str, size: int, limit: int) -> None:
        self.name = name
        self.size = size
        super().__init__(
            f"artifact {name!r} holds {size:,} bytes, more than one GetArtifact answer carries "
            f"({limit:,}); read it in chunks with ReadArtifact",
            metadata={"name": name, "size": str(size)},
        )


class InputPartUnavailableError(AgentdError):
    """A URL given as an input part could not be fetched (no answer in time, an error
    status, more than its size limit). Nothing of the request was stored."""

    reason = "INPUT_PART_UNAVAILABLE"

    def __init__(self, part: str, why: str) -> None:
        self.part = part
        super().__init__(f"input part {part}: {why}", metadata={"part": part})
