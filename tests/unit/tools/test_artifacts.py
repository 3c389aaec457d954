"""write_artifact / read_artifact on the in-memory store: what they check and keep."""

from __future__ import annotations

import base64

import pytest

from core.errors import ToolArgumentsInvalidError
from core.identity import CallContext, Principal
from records.parts import ImagePart
from records.tools.outcomes import ToolFailed
from stores.artifacts.memory import InMemoryArtifactStore
from tests.contract.test_knowledge_bases import PDF_TEXT, tiny_pdf
from tests.helpers import tiny_png
from tools.builtin.artifacts import MAX_BASE64_BYTES, ArtifactLimits, ReadArtifact, WriteArtifact

CHILD = CallContext(Principal("p", "t1"), task_id="task-child", artifact_space="task-root")


@pytest.fixture
def store() -> InMemoryArtifactStore:
    return InMemoryArtifactStore()


async def test_writes_go_to_the_tree_space_and_name_their_writer(
    store: InMemoryArtifactStore,
) -> None:
    written = await WriteArtifact(store).run({"name": "plan.md", "content": "1. a"}, CHILD)
    assert written.data == {
        "name": "plan.md",
        "version": 1,
        "media_type": "text/plain",
        "size": 4,
        "writer_task_id": "task-child",
    }
    assert [a.name for a in await store.latest("t1", "task-root")] == ["plan.md"]
    assert await store.latest("t1", "task-child") == []
    # A task on its own (no space set) is its own root.
    alone = CallContext(Principal("p", "t1"), task_id="task-alone")
    await WriteArtifact(store).run({"name": "x", "content": "y"}, alone)
    assert [a.name for a in await store.latest("t1", "task-alone")] == ["x"]


async def test_binary_round_trips_through_base64(store: InMemoryArtifactStore) -> None:
    raw = bytes(range(256))
    arguments = {"name": "b.bin", "content": base64.b64encode(raw).decode(), "format": "base64"}
    await WriteArtifact(store).run(arguments, CHILD)
    read = await ReadArtifact(store).run({"name": "b.bin"}, CHILD)
    assert read.data["format"] == "base64"
    assert base64.b64decode(read.data["content"]) == raw
    assert read.text == "(256 bytes of application/octet-stream, base64)"


async def test_text_that_cannot_be_utf8_is_refused(store: InMemoryArtifactStore) -> None:
    with pytest.raises(ToolArgumentsInvalidError, match="lone surrogate"):
        await WriteArtifact(store).run({"name": "x", "content": "bad \ud800"}, CHILD)
    with pytest.raises(ToolArgumentsInvalidError, match="not valid JSON"):  # by its media type
        await WriteArtifact(store).run(
            {"name": "x", "content": "{", "media_type": "application/ld+json"}, CHILD
        )
    with pytest.raises(ToolArgumentsInvalidError, match=r"may not hold '\.\.'"):
        await WriteArtifact(store).run({"name": "a..b", "content": "x"}, CHILD)
    assert await store.latest("t1", "task-root") == []


async def test_limits_are_observations_naming_their_settings(
    store: InMemoryArtifactStore,
) -> None:
    tool = WriteArtifact(store, ArtifactLimits(max_bytes=8, max_artifacts=2, max_versions=2))
    with pytest.raises(ToolFailed, match="AGENTD_ARTIFACT_MAX_BYTES"):
        await tool.run({"name": "a", "content": "é" * 5}, CHILD)  # 10 bytes, 5 characters
    for name in ("a", "b", "a"):
        await tool.run({"name": name, "content": "x"}, CHILD)
    with pytest.raises(ToolFailed, match="AGENTD_ARTIFACT_MAX_PER_TASK"):
        await tool.run({"name": "c", "content": "x"}, CHILD)
    with pytest.raises(ToolFailed, match="AGENTD_ARTIFACT_MAX_VERSIONS"):
        await tool.run({"name": "a", "content": "x"}, CHILD)
    await tool.run({"name": "b", "content": "x"}, CHILD)  # b has room for its second


async def test_a_missing_artifact_names_those_there_are(store: InMemoryArtifactStore) -> None:
    await WriteArtifact(store).run({"name": "plan.md", "content": "x"}, CHILD)
    with pytest.raises(ToolFailed, match=r"artifacts of this task: plan\.md"):
        await ReadArtifact(store).run({"name": "plan.md", "version": 2}, CHILD)
    old = await ReadArtifact(store).run({"name": "plan.md", "version": 1}, CHILD)
    assert old.text == "x"


async def test_outside_a_task_there_is_nowhere_to_write(store: InMemoryArtifactStore) -> None:
    with pytest.raises(ToolFailed, match="inside a task only"):
        await WriteArtifact(store).run({"name": "x", "content": "y"}, CallContext())
    with pytest.raises(ToolFailed, match="inside a task only"):
        await ReadArtifact(store).run({"name": "x"}, CallContext())


async def _write(store: InMemoryArtifactStore, name: str, media_type: str, raw: bytes) -> None:
    await store.write("t1", "task-root", name, media_type, raw, "task-child")


async def test_an_image_is_read_as_an_image_part_not_base64(
    store: InMemoryArtifactStore,
) -> None:
    await _write(store, "shot.png", "image/png", tiny_png(5, 4))
    read = await ReadArtifact(store).run({"name": "shot.png"}, CHILD)
    assert read.images == (ImagePart("shot.png", 1, "image/png", 5, 4),)
    assert read.data["format"] == "image"
    assert "content" not in read.data
    assert read.text.endswith("an image of 5x4 pixels, attached")


async def test_a_pdf_is_read_as_its_text(store: InMemoryArtifactStore) -> None:
    await _write(store, "w.pdf", "application/pdf", tiny_pdf(PDF_TEXT))
    read = await ReadArtifact(store).run({"name": "w.pdf"}, CHILD)
    assert read.data["format"] == "pdf_text"
    assert PDF_TEXT[0] in read.text
    await _write(store, "bad.pdf", "application/pdf", b"%PDF-1.4 broken")
    bad = await ReadArtifact(store).run({"name": "bad.pdf"}, CHILD)
    assert bad.text.endswith("not a readable PDF")


async def test_large_binary_is_a_note_not_base64(store: InMemoryArtifactStore) -> None:
    await _write(store, "big.bin", "application/octet-stream", b"\x01" * (MAX_BASE64_BYTES + 1))
    read = await ReadArtifact(store).run({"name": "big.bin"}, CHILD)
    assert read.data["format"] == "none"
    assert "content" not in read.data
    assert read.text == (
        f"big.bin version 1 ({MAX_BASE64_BYTES + 1} bytes of application/octet-stream): "
        "binary, not shown"
    )
