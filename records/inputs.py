"""A file or image given with a task's input (`ExecuteRequest.parts`): what a request
carries (`records.requests.TaskRequest.parts`) and, as a reference to the artifact it
became, what the task keeps (`records.tasks.Task.input_parts`)."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class InputPart:
    """A file or image given with a task's input (ExecuteRequest.parts), checked and, for a
    URL, fetched before the request reaches the engine. The engine keeps it as an artifact
    of the task (version 1) before the task is queued; what is stored with the task after
    that is the reference (`data` empty, `size` and `sha256` kept)."""

    name: str
    """The artifact's name (unique among the task's parts)."""
    media_type: str
    data: bytes = b""
    """The content, until it is kept as an artifact."""
    size: int = 0
    """Bytes of content."""
    sha256: str = ""
    """Hex digest of the content (in the request's fingerprint, never the bytes)."""
    source_uri: str = ""
    """The URL it was fetched from; empty for bytes given in the request."""
    width: int = 0
    """Pixels, for an image (measured when it was checked)."""
    height: int = 0

    def reference(self) -> InputPart:
        """The part without its bytes: what is stored with the task once the content is an
        artifact (size, digest and pixels kept)."""
        return replace(self, data=b"")
