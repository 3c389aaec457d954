"""`read_file`, `write_file`, `list_files`: file access confined to one workspace folder.

Paths are relative to the workspace. Absolute paths, `..` components, NUL
bytes and symbolic links that lead outside the workspace are refused with
PATH_OUTSIDE_WORKSPACE before anything is read or written; the final
component is opened with O_NOFOLLOW so that a link swapped in after the
check is not followed either. A file is opened without blocking (a FIFO or
a device in the workspace cannot hang a call) and read only if it is a
regular file. All file I/O runs on the tools' own threads. The workspace
has a quota of bytes and entries that `write_file` keeps it within.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from core.errors import PathOutsideWorkspaceError
from core.identity import CallContext
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.tools.outcomes import ToolFailed
from tools.builtin.work import in_thread

DEFAULT_MAX_FILE_BYTES = 1024 * 1024
MAX_LIST_ENTRIES = 1_000
MAX_OFFSET = 2**53
DEFAULT_QUOTA = 256 * 1024 * 1024
"""Bytes the workspace may hold in all (write_file refuses to grow it beyond)."""
DEFAULT_MAX_FILES = 10_000
"""Files and folders the workspace may hold."""
PATH_SCHEMA: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 1_024,
    "description": "Path relative to the workspace, e.g. 'notes/today.txt'.",
}


class Workspace:
    """The folder file tools may touch, the rule that keeps them inside it, and its quota."""

    def __init__(
        self, root: Path, quota_bytes: int = DEFAULT_QUOTA, max_entries: int = DEFAULT_MAX_FILES
    ) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root = root.resolve(strict=True)
        self.quota_bytes = quota_bytes
        self.max_entries = max_entries

    def usage(self) -> tuple[int, int]:
        """(bytes, entries) the workspace holds now; stops counting past the entry limit."""
        total = entries = 0
        pending = [self.root]
        while pending and entries <= self.max_entries:
            with os.scandir(pending.pop()) as found:
                for entry in found:
                    entries += 1
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(Path(entry.path))
                    elif entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
        return total, entries

    def resolve(self, path: str, field: str = "arguments.path") -> Path:
        """The real location of `path`, or PathOutsideWorkspaceError."""
        if "\x00" in path:
            raise PathOutsideWorkspaceError(field, path.replace("\x00", "\\0"), "NUL byte in path")
        if path.startswith(("/", "\\")) or (len(path) > 1 and path[1] == ":"):
            raise PathOutsideWorkspaceError(field, path, "absolute paths are not allowed")
        parts = PurePosixPath(path.replace("\\", "/")).parts
        if ".." in parts:
            raise PathOutsideWorkspaceError(field, path, "'..' is not allowed")
        real = self.root.joinpath(*parts).resolve(strict=False)
        if not real.is_relative_to(self.root):
            raise PathOutsideWorkspaceError(field, path, "a symbolic link leads outside")
        return real

    def relative(self, path: Path) -> str:
        rel = path.relative_to(self.root).as_posix()
        return rel if rel else "."


def _open_regular(real: Path, path: str, flags: int) -> tuple[int, os.stat_result]:
    """Open without following a final link and without blocking (a FIFO or a device would
    block or never end); refuse anything but a regular file before reading or writing."""
    try:
        fd = os.open(real, flags | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise _os_failure(exc, path) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ToolFailed(f"{path!r} is not a regular file")
    return fd, info


def _os_failure(exc: OSError, path: str) -> ToolFailed:
    reasons = {
        errno.ENOENT: "does not exist",
        errno.EISDIR: "is a directory",
        errno.ENOTDIR: "a part of the path is not a directory",
        errno.EEXIST: "already exists",
        errno.EACCES: "permission denied",
        errno.ELOOP: "is a symbolic link",
        errno.ENOSPC: "no space left",
        errno.ENXIO: "is not a regular file",
    }
    return ToolFailed(f"{path!r}: {reasons.get(exc.errno or 0, exc.strerror or str(exc))}")


class ReadFile(Tool):
    def __init__(self, workspace: Workspace, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self._ws = workspace
        self._max = max_bytes
        self.spec = ToolSpec(
            name="read_file",
            description=(
                "Read a UTF-8 text file from the workspace. Returns at most "
                f"{max_bytes} bytes from `offset`; `truncated` says whether more follows."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "path": PATH_SCHEMA,
                    "offset": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": MAX_OFFSET,
                        "default": 0,
                    },
                },
                "required": ["path"],
                "additionalProperties": False,
            },
            category="files",
            permission=PermissionLevel.READ,
            risk=RiskLevel.LOW,
            idempotent=True,
            timeout_seconds=10.0,
        )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        path = str(arguments["path"])
        offset = int(arguments.get("offset", 0))
        real = self._ws.resolve(path)
        return await in_thread(self._read, real, path, offset)

    def _read(self, real: Path, path: str, offset: int) -> ToolOutput:
        fd, info = _open_regular(real, path, os.O_RDONLY)
        with os.fdopen(fd, "rb") as f:
            if offset < info.st_size:
                f.seek(offset)
                raw = f.read(self._max + 1)
            else:
                raw = b""  # past the end: nothing more to read
        truncated = len(raw) > self._max
        raw = raw[: self._max]
        try:
            content = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if truncated and exc.start >= len(raw) - 3:  # cut inside a character
                content = raw[: exc.start].decode("utf-8")
            else:
                raise ToolFailed(f"{path!r} is not a UTF-8 text file") from None
        data = {
            "path": self._ws.relative(real),
            "content": content,
            "size": info.st_size,
            "offset": offset,
            "truncated": truncated,
        }
        return ToolOutput(data=data, text=content)


class WriteFile(Tool):
    def __init__(self, workspace: Workspace, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
        self._ws = workspace
        self._max = max_bytes
        self.spec = ToolSpec(
            name="write_file",
            description=(
                "Write a UTF-8 text file in the workspace. mode 'overwrite' (default) "
                "replaces the file atomically, 'append' adds to its end, 'create' fails "
                "if it exists. Missing parent folders are created."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "path": PATH_SCHEMA,
                    "content": {"type": "string", "maxLength": max_bytes},
                    "mode": {
                        "type": "string",
                        "enum": ["overwrite", "append", "create"],
                        "default": "overwrite",
                    },
                },
                "required": ["path", "content"],
                "additionalProperties": False,
            },
            category="files",
            permission=PermissionLevel.WRITE,
            risk=RiskLevel.MEDIUM,
            idempotent=False,
            timeout_seconds=10.0,
        )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        path = str(arguments["path"])
        content = str(arguments["content"]).encode("utf-8")
        if len(content) > self._max:
            raise ToolFailed(f"content is {len(content)} bytes, more than {self._max}")
        mode = str(arguments.get("mode", "overwrite"))
        real = self._ws.resolve(path)
        if real == self._ws.root:
            raise ToolFailed(f"{path!r} is the workspace folder itself")
        return await in_thread(self._write, real, path, content, mode)

    def _within_quota(self, real: Path, content: bytes, mode: str) -> None:
        used, entries = self._ws.usage()
        try:
            replaced = real.stat().st_size if mode == "overwrite" else 0
        except OSError:
            replaced = 0
        if used - replaced + len(content) > self._ws.quota_bytes:
            raise ToolFailed(
                f"the workspace would hold more than its quota of {self._ws.quota_bytes} bytes"
            )
        if not os.path.lexists(real) and entries >= self._ws.max_entries:
            raise ToolFailed(f"the workspace already holds {self._ws.max_entries} entries")

    def _write(self, real: Path, path: str, content: bytes, mode: str) -> ToolOutput:
        try:
            self._within_quota(real, content, mode)
            real.parent.mkdir(parents=True, exist_ok=True)
            # The parent may have been created through a link: check again.
            if not real.parent.resolve().is_relative_to(self._ws.root):
                raise PathOutsideWorkspaceError(
                    "arguments.path", path, "a symbolic link leads outside"
                )
            existed = os.path.lexists(real)
            if mode == "overwrite":
                if existed and not real.is_file():
                    raise ToolFailed(f"{path!r} is not a regular file")
                fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=".agentd-", suffix=".tmp")
                try:
                    with os.fdopen(fd, "wb") as f:
                        f.write(content)
                    os.replace(tmp, real)
                except BaseException:
                    Path(tmp).unlink(missing_ok=True)
                    raise
            elif mode == "append":
                fd, _ = _open_regular(real, path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
                with os.fdopen(fd, "wb") as f:
                    f.write(content)
            else:
                fd = os.open(real, os.O_WRONLY | os.O_NOFOLLOW | os.O_CREAT | os.O_EXCL, 0o644)
                with os.fdopen(fd, "wb") as f:
                    f.write(content)
        except OSError as exc:
            raise _os_failure(exc, path) from None
        data = {
            "path": self._ws.relative(real),
            "bytes_written": len(content),
            "created": not existed,
            "mode": mode,
        }
        return ToolOutput(data=data, text=f"wrote {len(content)} bytes to {data['path']}")


class ListFiles(Tool):
    def __init__(self, workspace: Workspace) -> None:
        self._ws = workspace
        self.spec = ToolSpec(
            name="list_files",
            description=(
                "List the entries of a folder in the workspace (default: its root), "
                f"recursively on request, at most {MAX_LIST_ENTRIES} entries."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "path": {**PATH_SCHEMA, "default": "."},
                    "recursive": {"type": "boolean", "default": False},
                },
                "additionalProperties": False,
            },
            category="files",
            permission=PermissionLevel.READ,
            risk=RiskLevel.LOW,
            idempotent=True,
            timeout_seconds=10.0,
        )

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        path = str(arguments.get("path", "."))
        recursive = bool(arguments.get("recursive", False))
        real = self._ws.resolve(path)
        return await in_thread(self._list, real, path, recursive)

    def _list(self, real: Path, path: str, recursive: bool) -> ToolOutput:
        entries: list[dict[str, JSONValue]] = []
        truncated = False
        pending = [real]
        try:
            if not real.is_dir():
                raise ToolFailed(f"{path!r} is not a folder")
            while pending and not truncated:
                folder = pending.pop(0)
                with os.scandir(folder) as it:
                    for entry in sorted(it, key=lambda e: e.name):
                        if len(entries) >= MAX_LIST_ENTRIES:
                            truncated = True
                            break
                        kind = (
                            "symlink"
                            if entry.is_symlink()
                            else "dir"
                            if entry.is_dir(follow_symlinks=False)
                            else "file"
                        )
                        size = entry.stat(follow_symlinks=False).st_size if kind == "file" else 0
                        rel = self._ws.relative(Path(entry.path))
                        entries.append({"path": rel, "type": kind, "size": size})
                        if recursive and kind == "dir":
                            pending.append(Path(entry.path))
        except OSError as exc:
            raise _os_failure(exc, path) from None
        data = {"path": self._ws.relative(real), "entries": entries, "truncated": truncated}
        lines = [f"{e['type']:7} {e['size']:>10} {e['path']}" for e in entries]
        text = "\n".join(lines) if lines else "(empty)"
        return ToolOutput(data=data, text=text)
