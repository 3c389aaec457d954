"""What a file's bytes say about it, read without trusting its sender: whether it is an
image a model can be shown (its type and size, from the header only) and a PDF's text.
Shared by the tools (`read_artifact`), the door that keeps tools' files and knowledge
ingestion (`agent.knowledge.documents`)."""

from __future__ import annotations

import io
from dataclasses import dataclass

from core.errors import FieldViolation, InvalidArgumentError

IMAGE_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
"""The image formats a model may be shown (Pillow's name: the media type)."""


@dataclass(frozen=True, slots=True)
class ImageFacts:
    """An image's type and size, as its header says."""

    media_type: str
    width: int
    height: int


def image_facts(content: bytes) -> ImageFacts | None:
    """The type and size of a PNG, JPEG, GIF or WebP image, or None when `content` is not
    one. Reads the header only (Pillow's `open` decodes no pixels)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(content)) as image:
            media_type = IMAGE_TYPES.get(image.format or "")
            width, height = image.size
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return None
    except Exception:  # noqa: BLE001 - any failure of a header parser is the file's
        return None
    if media_type is None or width <= 0 or height <= 0:
        return None
    return ImageFacts(media_type, width, height)


def pdf_text(content: bytes) -> str:
    """A PDF's text. Whatever pypdf raises while reading it (PdfReadError, but also
    LimitReachedError, AssertionError, AttributeError, RecursionError… on a corrupt or
    hostile file) means it is not a readable PDF: INVALID_ARGUMENT, never INTERNAL.
    Only `Exception`s: a cancellation (BaseException) goes through."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(content))
        return "\n".join(page.extract_text() or "" for page in reader.pages)
    except Exception as error:  # noqa: BLE001 - any failure of the parser is the file's
        why = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        raise InvalidArgumentError(
            [FieldViolation("content", f"is not a readable PDF ({why[:200]})")]
        ) from None
