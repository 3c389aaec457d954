"""Files from tools through the real server: an MCP tool (a real MCP server over stdio)
that returns an image leaves an artifact of the task that the lead reads back with
read_artifact, byte for byte; http_request fetching a PNG from 127.0.0.1 keeps it as an
artifact instead of decoding it as text."""

from __future__ import annotations

import hashlib
from pathlib import Path

from agentd.v1 import tasks_pb2
from tests.helpers import http_server, tiny_png
from tests.integration.harness import assert_well_formed, final, harness, of_kind
from tests.integration.toolsets import FAST, stdio_notes, write_toolsets

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
KEPT = "notes.photo-iteration-1-0-1-image.png"
"""The name the door gives the first file of the first call of the first iteration."""


async def test_an_mcp_image_is_kept_and_read_back_as_an_image(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [{"name": "notes_photo", "arguments": {"width": 5, "height": 4}}]},
        {"tool_calls": [{"name": "read_artifact", "arguments": {"name": KEPT}}]},
        {"text": "a red picture"},
    ]
    toolsets = {"notes": stdio_notes(tmp_path, level="read")}
    settings = {"toolsets_file": write_toolsets(tmp_path / "toolsets.yaml", toolsets), **FAST}
    settings["llm_image_models"] = "fake-model"  # a model that sees the images
    async with harness(tmp_path, replies, **settings) as h:
        events = await h.run("take a picture", mode=FC, tools=["notes.photo", "read_artifact"])
        assert_well_formed(events)
        task_id = events[0].task_id
        png = tiny_png(5, 4)
        [updated] = of_kind(events, "artifact_updated")
        facts = (updated.name, updated.version, updated.media_type, updated.size_bytes)
        assert facts == (KEPT, 1, "image/png", len(png))
        took, read = of_kind(events, "tool_call_finished")
        assert f"file kept as artifact {KEPT} version 1" in took.text
        assert hashlib.sha256(png).hexdigest() in took.text
        assert "an image of 5x4 pixels" in took.text
        assert read.text == f"{KEPT} version 1 ({len(png)} bytes of image/png): an image " + (
            "of 5x4 pixels, attached"
        )
        kept = await h.client.get_artifact(task_id, KEPT)
        assert kept.content == png  # byte for byte what the MCP server sent
        told, shown = h.llm.requests[1]["messages"][-2:]
        assert told["role"] == "tool"
        assert KEPT in told["content"]
        assert shown["role"] == "user"  # chat takes no image in a tool message: right after
        digest = hashlib.sha256(png).hexdigest()
        # The next call sees the image the tool returned; the one after it, that image and
        # the one read_artifact gave (the conversation's images go with every call).
        assert [(i.media_type, i.sha256) for i in h.llm.images[1]] == [("image/png", digest)]
        assert [i.sha256 for i in h.llm.images[2]] == [digest, digest]
        assert final(events).text == "a red picture"
        records = await h.server.durable.tool_calls.query("default")
        assert [r.outcome for r in records if r.tool_name == "notes.photo"] == ["ok"]


async def test_http_request_keeps_a_png_rather_than_decoding_it(tmp_path: Path) -> None:
    with http_server() as base:
        replies = [
            {"tool_calls": [{"name": "http_request", "arguments": {"url": f"{base}/image.png"}}]},
            {"text": "fetched"},
        ]
        local = {"http_allowed_networks": ["127.0.0.1/32"]}
        async with harness(tmp_path, replies, **local) as h:
            events = await h.run("fetch the picture", mode=FC, tools=["http_request"])
            assert_well_formed(events)
            [updated] = of_kind(events, "artifact_updated")
            assert updated.name == "http_request-iteration-1-0-1-image.png"
            [finished] = of_kind(events, "tool_call_finished")
            assert "\ufffd" not in finished.text
            assert "kept as a file" in finished.text
            kept = await h.client.get_artifact(events[0].task_id, updated.name)
            assert kept.content == tiny_png()
            assert kept.media_type == "image/png"
