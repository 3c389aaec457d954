"""write_artifact / read_artifact on the in-memory store: what they check and keep."""

from __future__ import annotations

import base64

import pytest

from core.errors import ToolArgumentsInvalidError
from core.identity import CallContext, Principal
from records.tools.outcomes import ToolFailed
from stores.artifacts.memory import InMemoryArtifactStore
from tools.builtin.artifacts import ArtifactLimits, ReadArtifact, WriteArtifact

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
