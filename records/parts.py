"""The parts of a message beyond its text: images by reference to an artifact, images
with their bytes on the way to a model, and further text (`records.messages.Message.parts`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class TextPart:
    """Text in a message's `parts`."""

    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image in a message's `parts`, by reference to an artifact of the task's tree:
    what checkpoints, conversation history and traces keep (never the image's bytes).
    Before a call the run turns it into an `InlineImage` for a model that sees images, or
    into a note naming the artifact for one that does not."""

    artifact: str
    """The artifact's name."""
    version: int
    media_type: str
    """`image/png`, `image/jpeg`, `image/gif` or `image/webp`."""
    width: int
    """Pixels, measured when the artifact was kept (token counting needs them)."""
    height: int
    detail: str = "auto"
    """OpenAI's `detail`: "auto", "low" or "high"."""


@dataclass(frozen=True, slots=True)
class InlineImage:
    """An image with its bytes, on its way to a model (`agent.llm`): made from an
    `ImagePart` just before a call, never stored (serializing one is an error)."""

    source: ImagePart
    data: bytes


MessagePart = TextPart | ImagePart | InlineImage


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


def image_label(image: ImagePart) -> str:
    """`input-1.png (image/png, 800×600)`."""
    return f"{image.artifact} ({image.media_type}, {image.width}×{image.height})"


def unseen_note(image: ImagePart) -> str:
    """What a model that does not see images is told in an image's place."""
    return (
        f"[image {image_label(image)} — this model does not see images; "
        "read_artifact can return it]"
    )


def dropped_note(image: ImagePart) -> str:
    """What a request is told in place of an image dropped to fit the model's window."""
    return f"[image {image_label(image)} left out to fit the context window]"


def parts_text(parts: Sequence[MessagePart]) -> str:
    """A message's parts as text (a trace's, a summary's): text as it is, an image by its
    artifact's name, never its bytes."""
    said: list[str] = []
    for part in parts:
        if isinstance(part, TextPart):
            said.append(part.text)
        else:
            image = part.source if isinstance(part, InlineImage) else part
            said.append(f"[image {image_label(image)}]")
    return "\n".join(said)


__all__ = [
    "ImagePart",
    "InlineImage",
    "InputPart",
    "MessagePart",
    "TextPart",
    "dropped_note",
    "image_label",
    "parts_text",
    "unseen_note",
]
