"""What a file's bytes say about it, read without trusting its sender: whether it is an
image a model can be shown (its type and size, from the header only) and a PDF's text.
Shared by the tools (`read_artifact`), the door that keeps tools' files and knowledge
ingestion (`agent.knowledge.documents`)."""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

from core.errors import FieldViolation, InvalidArgumentError

IMAGE_FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WEBP"}
"""The image types a model may be shown, with the format Pillow names each."""
MAX_IMAGE_PIXELS = 64 * 1024 * 1024
"""Pixels an image may have (about 67 million: a large camera's photo). Pillow's own guard
against decompression bombs warns from 89 million and refuses only from twice that; an
image is refused here from this many, its pixels never decoded."""
TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/yaml",
        "application/x-yaml",
        "application/x-ndjson",
        "application/javascript",
        "application/ecmascript",
        "application/sql",
        "application/graphql",
        "application/x-www-form-urlencoded",
    }
)
"""Media types outside `text/` (and the `+json`, `+xml` suffixes) whose content is text."""


def bare_type(media_type: str) -> str:
    """The media type without its parameters, lower case ("" for none)."""
    return media_type.split(";", 1)[0].strip().lower()


def is_text(media_type: str) -> bool:
    """Whether content of `media_type` is text: `text/*`, JSON, XML, YAML and the like (the
    one answer for artifacts, input parts and HTTP bodies)."""
    bare = bare_type(media_type)
    return bare.startswith("text/") or bare in TEXT_TYPES or bare.endswith(("+json", "+xml"))


@dataclass(frozen=True, slots=True)
class ImageFacts:
    """An image's type and size, as its header says."""

    media_type: str
    width: int
    height: int


def read_image(content: bytes) -> ImageFacts | str:
    """The type and size of a PNG, JPEG, GIF or WebP image, or what keeps `content` from
    being one a model may be shown (not an image, another format, no pixels, more than
    MAX_IMAGE_PIXELS). Reads the header only (Pillow's `open` decodes no pixels)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(content)) as image:
                found, (width, height) = image.format or "", image.size
    except Image.DecompressionBombError:
        return f"has more than {MAX_IMAGE_PIXELS:,} pixels"
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return "is not an image"
    except Exception:  # noqa: BLE001 - any failure of a header parser is the file's
        return "is not an image"
    media_type = next((t for t, f in IMAGE_FORMATS.items() if f == found), None)
    if media_type is None:
        return f"is a {found} image, not one of {', '.join(IMAGE_FORMATS.values())}"
    if width <= 0 or height <= 0:
        return "is an image without pixels"
    if width * height > MAX_IMAGE_PIXELS:
        return f"has {width}×{height} pixels, more than {MAX_IMAGE_PIXELS:,}"
    return ImageFacts(media_type, width, height)


def image_facts(content: bytes) -> ImageFacts | None:
    """`read_image`'s facts, or None when `content` is not an image a model may be shown."""
    read = read_image(content)
    return read if isinstance(read, ImageFacts) else None


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
