"""What an HTTP answer's body is to a model: text, decoded by its charset, or a file
(an image, a PDF, anything not text) that the door of tool calls keeps as an artifact
rather than decoding it into replacement characters (`agent.tool_use.files`)."""

from __future__ import annotations

import codecs
from urllib.parse import urlsplit

from core.files import bare_type, is_text
from records.tools.model import ToolFile

BINARY_KINDS = ("image/", "audio/", "video/", "font/", "model/")
BINARY_TYPES = frozenset(
    {
        "application/pdf",
        "application/octet-stream",
        "application/zip",
        "application/gzip",
        "application/x-gzip",
        "application/x-tar",
        "application/x-7z-compressed",
        "application/vnd.ms-excel",
        "application/msword",
        "application/wasm",
    }
)
"""Media types outside BINARY_KINDS whose bodies are files, whatever their bytes."""


def charset(content_type: str) -> str:
    """The response's text encoding: its charset when that names a text encoding (not a
    codec such as idna, rot13 or base64), else UTF-8."""
    for param in content_type.split(";")[1:]:
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            try:
                info = codecs.lookup(value.strip('"'))
            except LookupError:
                return "utf-8"
            text_encoding = getattr(info, "_is_text_encoding", True)
            return info.name if text_encoding and info.name not in ("idna", "punycode") else "utf-8"
    return "utf-8"


def is_binary(content_type: str, body: bytes) -> bool:
    """Whether the body is a file rather than text: its type is of a binary kind (an
    image, audio, video, a font, a PDF, an archive, application/octet-stream), or, of
    any other type or none, its bytes are not UTF-8 (or hold NUL) — except under a text
    type with another charset, which is decoded by it."""
    bare = bare_type(content_type)
    if bare.startswith(BINARY_KINDS) or bare in BINARY_TYPES:
        return True
    if is_text(bare) and charset(content_type) not in ("utf-8", "utf_8"):
        return False
    if b"\x00" in body:
        return True
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def body_file(url: str, content_type: str, body: bytes) -> ToolFile:
    """The body as a file: named after the URL's last path segment, typed as sent (or
    application/octet-stream)."""
    last = urlsplit(url).path.rstrip("/").rpartition("/")[2] or "body"
    return ToolFile(last[:100], bare_type(content_type) or "application/octet-stream", body)
