"""The checks a task's input parts (`records.requests.InputPart`) pass before anything of the
request is stored: how many, their names, their media types, their size, and that their
content is what their type says (an image is opened with Pillow to read its format and
size, never decoded whole; a PDF starts with `%PDF-`; text is UTF-8). Every problem is
an `InvalidArgumentError` field violation on `parts[i].<field>`."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from core.errors import FieldViolation, InvalidArgumentError
from core.files import IMAGE_FORMATS, ImageFacts, is_text, read_image
from records.parts import InputPart
from stores.artifacts.base import media_type_problem, name_problem
from tools.builtin.addresses import IPNetwork

MiB = 1024 * 1024
MAX_PARTS = 16
EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "application/pdf": "pdf",
    "text/plain": "txt",
    "text/csv": "csv",
    "text/markdown": "md",
    "text/html": "html",
    "application/json": "json",
}
"""The extension of a part's default name (`input-<i>.<ext>`), by media type."""
INPUT_TYPES = (*IMAGE_FORMATS, "application/pdf", "text/csv", "text/markdown")
"""The types of file a task's input is announced to take (an A2A card's input modes);
any media type is taken, these are checked for what they say they are."""


@dataclass(frozen=True, slots=True)
class InputLimits:
    """What a task's input parts may be (the AGENTD_INPUT_* settings)."""

    max_part_bytes: int = 8 * MiB
    """Bytes one part may hold (given or fetched)."""
    url_max_bytes: int = 8 * MiB
    """Bytes a URL part's answer may hold."""
    url_timeout_seconds: float = 15.0
    """Time a URL part's fetch may take, per phase (connect, each read)."""
    allowed_networks: Sequence[IPNetwork] = field(default_factory=tuple)
    """Non-public networks a URL part may reach anyway (`http_request`'s setting)."""


def default_name(index: int, media_type: str) -> str:
    """A part's name when its request gives none: `input-<i>` with its type's extension."""
    ext = EXTENSIONS.get(media_type.split(";", 1)[0])
    return f"input-{index}.{ext}" if ext else f"input-{index}"


def usable_name(name: str) -> str:
    """`name` when it is a valid artifact name, else "" (the part gets its default name):
    a door's file name (an A2A filename, an upload's) is kept when it can be."""
    return name if name_problem(name) is None else ""


def suggested_names(parts: Sequence[InputPart]) -> tuple[InputPart, ...]:
    """A door's parts with a name an earlier part already has cleared (that part gets its
    default name): the names a door takes from file names and URLs are suggestions, never
    a reason to refuse the request (a caller's own names must differ: `check_parts`)."""
    seen: set[str] = set()
    named: list[InputPart] = []
    for part in parts:
        if part.name in seen:
            part = replace(part, name="")
        seen.add(part.name)
        named.append(part)
    return tuple(named)


def check_count(parts: Sequence[InputPart]) -> None:
    """INVALID_ARGUMENT for more than MAX_PARTS parts."""
    if len(parts) > MAX_PARTS:
        problem = f"has {len(parts)} parts; at most {MAX_PARTS}"
        raise InvalidArgumentError([FieldViolation("parts", problem)])


def check_parts(parts: Sequence[InputPart], limits: InputLimits) -> tuple[InputPart, ...]:
    """The parts, each measured (size, sha256 and, for an image, its pixels); every
    problem of every part an INVALID_ARGUMENT field violation on `parts[i].<field>`."""
    check_count(parts)
    found: list[FieldViolation] = []
    seen: set[str] = set()
    checked: list[InputPart] = []
    for index, part in enumerate(parts):
        where = f"parts[{index}]"
        problem = name_problem(part.name)
        if problem is not None:
            found.append(FieldViolation(f"{where}.name", problem))
        elif part.name in seen:
            found.append(FieldViolation(f"{where}.name", "is the name of an earlier part"))
        seen.add(part.name)
        problem = media_type_problem(part.media_type)
        if problem is not None:
            found.append(FieldViolation(f"{where}.media_type", problem))
            continue
        if len(part.data) > limits.max_part_bytes:
            problem = f"holds {len(part.data):,} bytes; at most {limits.max_part_bytes:,}"
            found.append(FieldViolation(f"{where}.data", problem))
            continue
        measured, problem = measure(part)
        if problem is not None:
            found.append(FieldViolation(f"{where}.data", problem))
            continue
        checked.append(measured)
    if found:
        raise InvalidArgumentError(found)
    return tuple(checked)


def measure(part: InputPart) -> tuple[InputPart, str | None]:
    """The part with its size, digest and (an image's) pixels, or what is wrong with its
    content for its media type."""
    data, bare = part.data, part.media_type.split(";", 1)[0]
    if not data:
        return part, "is empty"
    width = height = 0
    if bare.startswith("image/"):
        if bare not in IMAGE_FORMATS:
            return part, f"{bare} is not an image type a task takes ({', '.join(IMAGE_FORMATS)})"
        expected, facts = IMAGE_FORMATS[bare], read_image(data)
        if facts == "is not an image":
            return part, f"is not an image of its type ({expected})"
        if not isinstance(facts, ImageFacts):
            return part, facts
        if facts.media_type != bare:
            found = IMAGE_FORMATS[facts.media_type]
            return part, f"is a {found} image, not {expected} as its media type says"
        width, height = facts.width, facts.height
    elif bare == "application/pdf":
        if not data.startswith(b"%PDF-"):
            return part, "is not a PDF (it does not start with %PDF-)"
    elif is_text(part.media_type):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return part, f"is not UTF-8 text (byte {exc.start})"
    digest = part.sha256 or hashlib.sha256(data).hexdigest()  # a given part's: at intake
    return replace(part, size=len(data), sha256=digest, width=width, height=height), None
