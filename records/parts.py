"""The parts of a message beyond its text: images by reference to an artifact, images
with their bytes on the way to a model, and further text (`records.messages.Message.parts`)."""

from __future__ import annotations

from dataclasses import dataclass


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

__all__ = ["ImagePart", "InlineImage", "MessagePart", "TextPart"]
