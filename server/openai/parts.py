"""Images and files in OpenAI message content as a task's input parts
(`records.requests.InputPart`; `agent.inputs` checks, fetches and keeps them).

Responses: `{"type": "input_image", "image_url": "data:image/png;base64,..." or an
http(s) URL}` and `{"type": "input_file", "file_data": "data:application/pdf;base64,...",
"filename": "contract.pdf"}` (or `file_url`). Chat Completions: `{"type": "image_url",
"image_url": {"url": ...}}` and `{"type": "file", "file": {"file_data": ..., "filename":
...}}`. A `file_id` (OpenAI's file store) is not taken: 400 naming the field.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from agent.inputs.checks import usable_name
from records.parts import InputPart
from server.openai.errors import invalid

PART_TYPES = ("input_image", "input_file", "image_url", "file")
"""Content part types that carry an image or a file."""


def data_url(value: str, param: str) -> tuple[str, bytes]:
    """A `data:<media type>;base64,<data>` URL's media type and bytes."""
    head, comma, payload = value.partition(",")
    if not comma or not head.startswith("data:") or not head.endswith(";base64"):
        raise invalid(param, "must be a data URL (data:<media type>;base64,...) or an http(s) URL")
    media_type = head[len("data:") : -len(";base64")].lower()
    try:
        return media_type, base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise invalid(param, "is not valid base64") from None


def _by_url(url: Any, param: str, name: str = "", image: bool = False) -> InputPart:
    if not isinstance(url, str) or not url:
        raise invalid(param, "is required: a data URL or an http(s) URL")
    if url.startswith(("http://", "https://")):
        return InputPart(name=name, media_type="", source_uri=url)
    media_type, data = data_url(url, param)
    if image and not media_type.startswith("image/"):
        raise invalid(param, f"is a {media_type or 'typeless'} data URL, not an image")
    return InputPart(name=name, media_type=media_type, data=data)


def _file(file: Any, param: str) -> InputPart:
    if not isinstance(file, dict):
        raise invalid(param, "must be an object")
    if file.get("file_id"):
        raise invalid(f"{param}.file_id", "is not taken: send the file as file_data or file_url")
    filename = file.get("filename")
    # A filename that is no artifact name leaves the part its default name (input-<i>.<ext>).
    name = usable_name(filename) if isinstance(filename, str) else ""
    if file.get("file_url") is not None:
        return _by_url(file.get("file_url"), f"{param}.file_url", name)
    return _by_url(file.get("file_data"), f"{param}.file_data", name)


def part_of(part: dict[str, Any], param: str) -> InputPart:
    """One image or file content part (its `type` one of PART_TYPES) as an input part."""
    kind = part["type"]
    if kind == "input_image":
        if part.get("file_id"):
            raise invalid(f"{param}.file_id", "is not taken: send the image as image_url")
        return _by_url(part.get("image_url"), f"{param}.image_url", image=True)
    if kind == "image_url":
        image = part.get("image_url")
        if not isinstance(image, dict):
            raise invalid(f"{param}.image_url", "must be an object with a url")
        return _by_url(image.get("url"), f"{param}.image_url.url", image=True)
    if kind == "input_file":
        return _file(part, param)
    return _file(part.get("file"), f"{param}.file")
