"""What a chat completions request carried, for tests to assert: the image parts a model
received (media type, size, digest, detail; never kept whole) and the text it was sent."""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from records.messages import Message
from records.parts import InlineImage, TextPart


@dataclass(frozen=True, slots=True)
class ReceivedImage:
    """An image part a model received."""

    media_type: str
    size: int
    """Bytes of the image."""
    sha256: str
    """Hex digest of its bytes: a test compares it with the input's."""
    detail: str
    role: str
    """The role of the message that carried it."""


def _image(part: dict[str, Any], role: str) -> ReceivedImage | None:
    source = part.get("image_url")
    url = source.get("url") if isinstance(source, dict) else None
    if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
        return None
    head, encoded = url[len("data:") :].split(";base64,", 1)
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None
    detail = str(source.get("detail", "auto")) if isinstance(source, dict) else "auto"
    return ReceivedImage(head, len(data), hashlib.sha256(data).hexdigest(), detail, role)


def images_of(body: dict[str, Any]) -> list[ReceivedImage]:
    """The image parts of a request body's messages, in order (URLs that are not base64
    data are left out)."""
    found: list[ReceivedImage] = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        role = str(message.get("role", ""))
        for part in content:
            if isinstance(part, dict) and part.get("type") == "image_url":
                image = _image(part, role)
                if image is not None:
                    found.append(image)
    return found


def text_of(body: dict[str, Any]) -> str:
    """All the text of a request body's messages (strings and text parts), one message a
    line."""
    lines: list[str] = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            lines.append(content)
        elif isinstance(content, list):
            lines.extend(
                str(p.get("text", ""))
                for p in content
                if isinstance(p, dict) and p.get("type") == "text"
            )
    return "\n".join(lines)


def images_in(messages: Iterable[Message]) -> list[ReceivedImage]:
    """The inline images of messages a test double was called with."""
    return [
        ReceivedImage(
            part.source.media_type,
            len(part.data),
            hashlib.sha256(part.data).hexdigest(),
            part.source.detail,
            message.role,
        )
        for message in messages
        for part in message.parts
        if isinstance(part, InlineImage)
    ]


def text_in(messages: Iterable[Message]) -> str:
    """All the text of messages a test double was called with (content and text parts)."""
    lines: list[str] = []
    for message in messages:
        lines.append(message.content)
        lines.extend(p.text for p in message.parts if isinstance(p, TextPart))
    return "\n".join(lines)
