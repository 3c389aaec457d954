"""Files and images given to an agent tool (its `files` argument) as the task's input
parts (`agent.inputs` checks, fetches and keeps them), in MCP's own content shapes:

    {"type": "image", "data": "<base64>", "mimeType": "image/png"}
    {"type": "resource", "resource": {"uri": "file:///contract.pdf",
                                      "mimeType": "application/pdf", "blob": "<base64>"}}
    {"type": "resource_link", "uri": "https://example.com/a.png", "mimeType": "image/png"}

A resource's `text` stands for its content as UTF-8; a resource link's URI must be
http(s) (the server fetches it); the name of an embedded resource is the last segment
of its URI, when that is an artifact name.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from agent.inputs.checks import suggested_names, usable_name
from core.errors import FieldViolation, InvalidArgumentError
from records.parts import InputPart

FILES_SCHEMA: dict[str, Any] = {
    "type": "array",
    "description": "files and images for the task, as MCP content: image ({data, "
    "mimeType}), resource ({resource: {uri, mimeType, blob or text}}) or resource_link "
    "({uri: an http(s) URL, mimeType}); each is kept as an artifact of the task",
    "items": {"type": "object"},
    "maxItems": 16,
}


def _refuse(field: str, problem: str) -> InvalidArgumentError:
    return InvalidArgumentError([FieldViolation(field, problem)])


def _blob(value: Any, field: str) -> bytes:
    if not isinstance(value, str):
        raise _refuse(field, "must be base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise _refuse(field, "is not valid base64") from None


def _name_of(uri: str) -> str:
    return usable_name(uri.rstrip("/").rsplit("/", 1)[-1])


def _media_type(value: Any, field: str, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value:
        raise _refuse(field, "is required")
    return value.lower()


def part_of(item: Any, field: str) -> InputPart:
    """One content item of `files`."""
    if not isinstance(item, dict):
        raise _refuse(field, "must be an object")
    kind = item.get("type")
    if kind == "image":
        media_type = _media_type(item.get("mimeType"), f"{field}.mimeType")
        return InputPart(name="", media_type=media_type, data=_blob(item.get("data"), field))
    if kind == "resource_link":
        uri = item.get("uri")
        if not isinstance(uri, str) or not uri.startswith(("http://", "https://")):
            raise _refuse(f"{field}.uri", "must be an http(s) URL the server can fetch")
        media_type = _media_type(item.get("mimeType"), f"{field}.mimeType", required=False)
        return InputPart(name=_name_of(uri), media_type=media_type, source_uri=uri)
    if kind == "resource":
        resource = item.get("resource")
        if not isinstance(resource, dict):
            raise _refuse(f"{field}.resource", "must be an object")
        inner = f"{field}.resource"
        media_type = _media_type(resource.get("mimeType"), f"{inner}.mimeType")
        uri = resource.get("uri")
        name = _name_of(uri) if isinstance(uri, str) else ""
        if isinstance(resource.get("text"), str):
            return InputPart(name=name, media_type=media_type, data=resource["text"].encode())
        return InputPart(name=name, media_type=media_type, data=_blob(resource.get("blob"), inner))
    raise _refuse(f"{field}.type", "must be image, resource or resource_link")


def parts_of(files: Any) -> tuple[InputPart, ...]:
    """The `files` argument (absent: none) as input parts."""
    if files is None:
        return ()
    if not isinstance(files, list):
        raise _refuse("arguments.files", "must be a list of content items")
    return suggested_names([part_of(item, f"arguments.files[{i}]") for i, item in enumerate(files)])
