"""What an MCP tool's result comes to: images, audio and binary or long text resources
become files (kept as artifacts by the door), short text resources stay inline, and a
block whose base64 is broken is dropped with a note."""

from __future__ import annotations

import base64

import mcp_types as types

from records.tools.model import ToolFile
from tests.helpers import tiny_png
from tools.mcp.tool import INLINE_RESOURCE_CHARS, output_of

PNG = tiny_png()


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _result(*blocks: object) -> types.CallToolResult:
    return types.CallToolResult.model_validate({"content": list(blocks), "isError": False})


def test_an_image_and_audio_are_files() -> None:
    out = output_of(
        _result(
            {"type": "text", "text": "here"},
            {"type": "image", "data": _b64(PNG), "mimeType": "image/png"},
            {"type": "audio", "data": _b64(b"RIFF...."), "mimeType": "audio/wav"},
        )
    )
    assert out.files == (
        ToolFile("image", "image/png", PNG),
        ToolFile("audio", "audio/wav", b"RIFF...."),
    )
    assert out.text.splitlines() == [
        "here",
        f"[image image/png, {len(PNG)} bytes: see the file below]",
        "[audio audio/wav, 8 bytes: see the file below]",
    ]
    assert _b64(PNG) not in repr(out.data)


def test_resources_blob_and_long_text_are_files_short_text_inline() -> None:
    long = "a" * (INLINE_RESOURCE_CHARS + 1)
    out = output_of(
        _result(
            {
                "type": "resource",
                "resource": {
                    "uri": "file:///r/doc.pdf",
                    "blob": _b64(b"%PDF"),
                    "mimeType": "application/pdf",
                },
            },
            {
                "type": "resource",
                "resource": {
                    "uri": "file:///r/short.md",
                    "text": "# hi",
                    "mimeType": "text/markdown",
                },
            },
            {"type": "resource", "resource": {"uri": "file:///r/long.txt", "text": long}},
        )
    )
    assert out.files == (
        ToolFile("doc.pdf", "application/pdf", b"%PDF"),
        ToolFile("long.txt", "text/plain", long.encode()),
    )
    lines = out.text.splitlines()
    assert lines[1] == "# hi"
    assert lines[2].startswith("[resource file:///r/long.txt, 16001 characters")
    assert long not in repr(out.data)


def test_broken_base64_is_dropped_with_a_note() -> None:
    out = output_of(_result({"type": "image", "data": "!!not base64", "mimeType": "image/png"}))
    assert out.files == ()
    assert out.text == "[image image/png: not valid base64, dropped]"
