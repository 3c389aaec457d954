"""An MCP agent tool's `files` argument (MCP content items) as the task's input parts."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from core.errors import InvalidArgumentError
from server.mcp.catalog import INPUT_SCHEMA
from server.mcp.files import parts_of


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_image_resource_and_link_items_become_parts() -> None:
    assert "files" in INPUT_SCHEMA["properties"]
    parts = parts_of(
        [
            {"type": "image", "data": _b64(b"\x89PNG"), "mimeType": "image/png"},
            {
                "type": "resource",
                "resource": {
                    "uri": "file:///deals/contract.pdf",
                    "mimeType": "application/pdf",
                    "blob": _b64(b"%PDF-1.7"),
                },
            },
            {
                "type": "resource",
                "resource": {"uri": "mem://x y", "mimeType": "text/csv", "text": "a,b"},
            },
            {"type": "resource_link", "uri": "https://example.com/a.png", "mimeType": "image/png"},
        ]
    )
    assert [(p.name, p.media_type, p.data, p.source_uri) for p in parts] == [
        ("", "image/png", b"\x89PNG", ""),
        ("contract.pdf", "application/pdf", b"%PDF-1.7", ""),
        ("", "text/csv", b"a,b", ""),  # "x y" is no artifact name: the default one
        ("a.png", "image/png", b"", "https://example.com/a.png"),
    ]
    assert parts_of(None) == ()


@pytest.mark.parametrize(
    ("files", "field"),
    [
        ("x", "arguments.files"),
        ([3], "arguments.files[0]"),
        ([{"type": "audio"}], "arguments.files[0].type"),
        ([{"type": "image", "data": "@@", "mimeType": "image/png"}], "arguments.files[0]"),
        ([{"type": "image", "data": _b64(b"x")}], "arguments.files[0].mimeType"),
        ([{"type": "resource_link", "uri": "file:///etc/passwd"}], "arguments.files[0].uri"),
        (
            [{"type": "resource", "resource": {"mimeType": "text/plain"}}],
            "arguments.files[0].resource",
        ),
    ],
)
def test_malformed_items_name_their_field(files: Any, field: str) -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        parts_of(files)
    assert refused.value.field_violations[0].field == field


def test_two_files_named_alike_by_their_uris_are_both_taken() -> None:
    # The names a door takes from URIs are suggestions: a second `logo.png` gets its
    # default name (input-<i>.png) rather than failing the request as a clash.
    link = {"type": "resource_link", "mimeType": "image/png"}
    parts = parts_of(
        [
            {**link, "uri": "https://a.example/logo.png"},
            {**link, "uri": "https://b.example/img/logo.png"},
        ]
    )
    assert [(p.name, p.source_uri) for p in parts] == [
        ("logo.png", "https://a.example/logo.png"),
        ("", "https://b.example/img/logo.png"),
    ]
