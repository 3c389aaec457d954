"""The artifact store contract, on memory, SQLite and the machine's PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from stores.artifacts.base import ArtifactStore
from stores.artifacts.memory import InMemoryArtifactStore
from stores.artifacts.sql import SqlArtifactStore
from tests.contract.conftest import SQL_BACKENDS, migrated_database


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def artifacts(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[ArtifactStore]:
    if request.param == "memory":
        yield InMemoryArtifactStore()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlArtifactStore(database)


async def test_each_write_adds_a_version_and_old_ones_stay(artifacts: ArtifactStore) -> None:
    first = await artifacts.write("t1", "root", "plan.md", "text/markdown", b"one", "task-a")
    second = await artifacts.write("t1", "root", "plan.md", "text/plain", b"two!", "task-b")
    assert (first.version, second.version) == (1, 2)
    assert (second.media_type, second.size, second.writer_task_id) == ("text/plain", 4, "task-b")
    latest = await artifacts.read("t1", "root", "plan.md")
    assert latest is not None
    assert (latest.info.version, latest.content, latest.text) == (2, b"two!", "two!")
    old = await artifacts.read("t1", "root", "plan.md", 1)
    assert old is not None
    assert (old.content, old.info.media_type, old.info.writer_task_id) == (
        b"one",
        "text/markdown",
        "task-a",
    )
    assert await artifacts.read("t1", "root", "plan.md", 3) is None
    assert await artifacts.read("t1", "root", "plan.md", 0) is None
    assert await artifacts.read("t1", "root", "other") is None


async def test_bytes_round_trip_exactly(artifacts: ArtifactStore) -> None:
    content = bytes(range(256)) * 4 + b"\x00\xff"
    await artifacts.write("t1", "root", "blob.bin", "application/octet-stream", content, "w")
    found = await artifacts.read("t1", "root", "blob.bin")
    assert found is not None
    assert found.content == content
    assert found.text is None  # not a text media type
    assert found.info.size == len(content)


async def test_latest_lists_each_name_once_by_name(artifacts: ArtifactStore) -> None:
    await artifacts.write("t1", "root", "b", "text/plain", b"b1", "w1")
    await artifacts.write("t1", "root", "a", "application/json", b"{}", "w1")
    await artifacts.write("t1", "root", "b", "text/plain", b"b2-longer", "w2")
    await artifacts.write("t1", "other-root", "c", "text/plain", b"c", "w3")
    listed = await artifacts.latest("t1", "root")
    assert [(i.name, i.version, i.size, i.writer_task_id) for i in listed] == [
        ("a", 1, 2, "w1"),
        ("b", 2, 9, "w2"),
    ]
    assert all(i.created_at.tzinfo is not None for i in listed)


async def test_written_by_gives_the_latest_version_each_task_wrote(
    artifacts: ArtifactStore,
) -> None:
    await artifacts.write("t1", "root", "x", "text/plain", b"1", "lead")
    await artifacts.write("t1", "root", "x", "text/plain", b"2", "child")
    await artifacts.write("t1", "root", "x", "text/plain", b"3", "lead")
    await artifacts.write("t1", "root", "y", "text/plain", b"1", "child")
    mine = await artifacts.written_by("t1", "root", "lead")
    assert [(i.name, i.version) for i in mine] == [("x", 3)]
    theirs = await artifacts.written_by("t1", "root", "child")
    assert [(i.name, i.version) for i in theirs] == [("x", 2), ("y", 1)]
    assert await artifacts.written_by("t1", "root", "nobody") == []


async def test_another_tenant_sees_nothing(artifacts: ArtifactStore) -> None:
    await artifacts.write("t1", "root", "secret", "text/plain", b"mine", "w")
    assert await artifacts.read("t2", "root", "secret") is None
    assert await artifacts.read("t2", "root", "secret", 1) is None
    assert await artifacts.latest("t2", "root") == []
    assert await artifacts.written_by("t2", "root", "w") == []


async def test_concurrent_writes_of_one_name_each_get_a_version(
    artifacts: ArtifactStore,
) -> None:
    written = await asyncio.gather(
        *(
            artifacts.write("t1", "root", "log", "text/plain", f"w{i}".encode(), f"task-{i}")
            for i in range(8)
        )
    )
    assert sorted(i.version for i in written) == list(range(1, 9))
    for info in written:
        found = await artifacts.read("t1", "root", "log", info.version)
        assert found is not None
        assert found.info.writer_task_id == info.writer_task_id


async def test_a_version_is_read_in_ranges_and_described(artifacts: ArtifactStore) -> None:
    content = bytes(range(256)) * 40 + b"\x00end"
    await artifacts.write("t1", "root", "big.bin", "application/octet-stream", content, "w")
    await artifacts.write("t1", "root", "big.bin", "text/plain", b"second", "w2")
    pieces = [
        await artifacts.read_range("t1", "root", "big.bin", 1, offset, 1000)
        for offset in range(0, len(content), 1000)
    ]
    assert [len(p) for p in pieces[:-1]] == [1000] * (len(pieces) - 1)
    assert b"".join(pieces) == content
    assert await artifacts.read_range("t1", "root", "big.bin", 1, len(content), 10) == b""
    assert await artifacts.read_range("t1", "root", "big.bin", 2, 1, 3) == b"eco"
    assert await artifacts.read_range("t1", "root", "big.bin", 3, 0, 10) == b""
    assert await artifacts.read_range("t2", "root", "big.bin", 1, 0, 10) == b""  # another tenant
    first = await artifacts.describe("t1", "root", "big.bin", 1)
    assert first is not None
    assert (first.version, first.size, first.writer_task_id) == (1, len(content), "w")
    latest = await artifacts.describe("t1", "root", "big.bin")
    assert latest is not None
    assert (latest.version, latest.media_type) == (2, "text/plain")
    assert await artifacts.describe("t1", "root", "big.bin", 3) is None
    assert await artifacts.describe("t2", "root", "big.bin") is None
