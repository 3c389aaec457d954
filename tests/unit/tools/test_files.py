from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.errors import PathOutsideWorkspaceError
from core.identity import CallContext
from records.tools.outcomes import ToolFailed
from tools.builtin.files import ListFiles, ReadFile, Workspace, WriteFile


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    return secret


async def test_write_then_read_round_trip(ws: Workspace, ctx: CallContext) -> None:
    written = await WriteFile(ws).run({"path": "notes/a.txt", "content": "héllo\n"}, ctx)
    assert written.data == {
        "path": "notes/a.txt",
        "bytes_written": 7,
        "created": True,
        "mode": "overwrite",
    }
    read = await ReadFile(ws).run({"path": "notes/a.txt"}, ctx)
    assert read.data["content"] == "héllo\n"
    assert read.data["truncated"] is False
    assert (ws.root / "notes" / "a.txt").read_text() == "héllo\n"


async def test_append_and_create_modes(ws: Workspace, ctx: CallContext) -> None:
    tool = WriteFile(ws)
    await tool.run({"path": "log.txt", "content": "a", "mode": "create"}, ctx)
    await tool.run({"path": "log.txt", "content": "b", "mode": "append"}, ctx)
    assert (ws.root / "log.txt").read_text() == "ab"
    with pytest.raises(ToolFailed, match="already exists"):
        await tool.run({"path": "log.txt", "content": "c", "mode": "create"}, ctx)
    assert (ws.root / "log.txt").read_text() == "ab"


async def test_overwrite_is_atomic_and_leaves_no_temp_files(
    ws: Workspace, ctx: CallContext
) -> None:
    tool = WriteFile(ws)
    await tool.run({"path": "f.txt", "content": "old"}, ctx)
    await tool.run({"path": "f.txt", "content": "new"}, ctx)
    assert sorted(p.name for p in ws.root.iterdir()) == ["f.txt"]
    assert (ws.root / "f.txt").read_text() == "new"


async def test_read_truncates_at_limit_and_supports_offset(ws: Workspace, ctx: CallContext) -> None:
    (ws.root / "big.txt").write_text("abcdefghij")
    read = await ReadFile(ws, max_bytes=4).run({"path": "big.txt"}, ctx)
    assert read.data["content"] == "abcd"
    assert read.data["truncated"] is True
    assert read.data["size"] == 10
    rest = await ReadFile(ws, max_bytes=100).run({"path": "big.txt", "offset": 8}, ctx)
    assert rest.data["content"] == "ij"


async def test_read_refuses_binary_and_missing_and_folders(ws: Workspace, ctx: CallContext) -> None:
    (ws.root / "bin").write_bytes(b"\xff\xfe\x00\x01")
    (ws.root / "dir").mkdir()
    with pytest.raises(ToolFailed, match="not a UTF-8"):
        await ReadFile(ws).run({"path": "bin"}, ctx)
    with pytest.raises(ToolFailed, match="does not exist"):
        await ReadFile(ws).run({"path": "missing.txt"}, ctx)
    with pytest.raises(ToolFailed, match=r"not a regular file|is a directory"):
        await ReadFile(ws).run({"path": "dir"}, ctx)


async def test_write_refuses_content_over_limit(ws: Workspace, ctx: CallContext) -> None:
    with pytest.raises(ToolFailed, match="more than"):
        await WriteFile(ws, max_bytes=10).run({"path": "x", "content": "é" * 6}, ctx)
    assert not (ws.root / "x").exists()


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("../secret.txt", "'..' is not allowed"),
        ("a/../../secret.txt", "'..' is not allowed"),
        ("/etc/passwd", "absolute"),
        ("\\windows\\system32", "absolute"),
        ("C:/Windows", "absolute"),
        ("ok\x00.txt", "NUL"),
        ("..", "'..' is not allowed"),
    ],
)
async def test_path_escapes_are_refused(
    ws: Workspace, ctx: CallContext, outside: Path, path: str, why: str
) -> None:
    for tool, args in (
        (ReadFile(ws), {"path": path}),
        (WriteFile(ws), {"path": path, "content": "pwned"}),
        (ListFiles(ws), {"path": path}),
    ):
        with pytest.raises(PathOutsideWorkspaceError, match=why) as info:
            await tool.run(args, ctx)
        assert info.value.field_violations[0].field == "arguments.path"
    assert outside.read_text() == "top secret"


async def test_symlinks_that_escape_are_refused(
    ws: Workspace, ctx: CallContext, outside: Path
) -> None:
    os.symlink(outside, ws.root / "link.txt")
    os.symlink(outside.parent, ws.root / "linkdir")
    with pytest.raises(PathOutsideWorkspaceError, match="symbolic link"):
        await ReadFile(ws).run({"path": "link.txt"}, ctx)
    with pytest.raises(PathOutsideWorkspaceError, match="symbolic link"):
        await WriteFile(ws).run({"path": "link.txt", "content": "pwned"}, ctx)
    with pytest.raises(PathOutsideWorkspaceError, match="symbolic link"):
        await WriteFile(ws).run({"path": "linkdir/new.txt", "content": "pwned"}, ctx)
    with pytest.raises(PathOutsideWorkspaceError, match="symbolic link"):
        await ListFiles(ws).run({"path": "linkdir"}, ctx)
    assert outside.read_text() == "top secret"
    assert not (outside.parent / "new.txt").exists()


async def test_symlinks_inside_the_workspace_are_followed(ws: Workspace, ctx: CallContext) -> None:
    (ws.root / "real.txt").write_text("inside")
    os.symlink(ws.root / "real.txt", ws.root / "alias.txt")
    read = await ReadFile(ws).run({"path": "alias.txt"}, ctx)
    assert read.data["content"] == "inside"


async def test_list_files_flat_recursive_and_limits(ws: Workspace, ctx: CallContext) -> None:
    (ws.root / "a.txt").write_text("12345")
    (ws.root / "sub").mkdir()
    (ws.root / "sub" / "b.txt").write_text("1")
    flat = await ListFiles(ws).run({}, ctx)
    assert flat.data["entries"] == [
        {"path": "a.txt", "type": "file", "size": 5},
        {"path": "sub", "type": "dir", "size": 0},
    ]
    deep = await ListFiles(ws).run({"recursive": True}, ctx)
    assert [e["path"] for e in deep.data["entries"]] == ["a.txt", "sub", "sub/b.txt"]
    with pytest.raises(ToolFailed, match="not a folder"):
        await ListFiles(ws).run({"path": "a.txt"}, ctx)


async def test_list_files_caps_entries(ws: Workspace, ctx: CallContext) -> None:
    for i in range(1_005):
        (ws.root / f"f{i:04}").write_text("")
    listing = await ListFiles(ws).run({}, ctx)
    assert len(listing.data["entries"]) == 1_000
    assert listing.data["truncated"] is True
