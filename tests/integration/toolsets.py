"""Helpers of the toolsets tests: toolsets files, the test MCP server (stdio, or HTTP as a
process of the test's own), and waiting (bounded) for what a server does on its own."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from tests.helpers import ROOT

SERVER_MODULE = "tests.integration.mcp_notes_server"
HOSTILE_MODULE = "tests.integration.mcp_hostile_server"
FAST: dict[str, Any] = {
    "toolsets_restart_initial_seconds": 0.2,
    "toolsets_restart_max_seconds": 1.0,
    "toolsets_ping_seconds": 0,
    "toolsets_reload_seconds": 0.2,
}
"""Settings that make toolset tests quick: short reconnection waits, no pings."""


def notes_env(folder: Path) -> dict[str, str]:
    return {
        "NOTES_LOG": str(folder / "notes.log"),
        "NOTES_PID_FILE": str(folder / "notes.pid"),
        "NOTES_CREDITS": str(folder / "credits"),
    }


def stdio_notes(folder: Path, **settings: Any) -> dict[str, Any]:
    """A toolset of the notes server run over stdio, with `settings` (level, tools, ...)."""
    mcp = {
        "command": sys.executable,
        "args": ["-m", SERVER_MODULE, "stdio"],
        "cwd": str(ROOT),
        "env": notes_env(folder),
        **settings.pop("mcp", {}),
    }
    return {"mcp": mcp, **settings}


def stdio_hostile(
    folder: Path, env: dict[str, str] | None = None, **settings: Any
) -> dict[str, Any]:
    """A toolset of the hostile server (`mcp_hostile_server`) run over stdio."""
    mcp = {
        "command": sys.executable,
        "args": ["-m", HOSTILE_MODULE],
        "cwd": str(ROOT),
        "env": {"NOTES_PID_FILE": str(folder / "hostile.pid"), **(env or {})},
        **settings.pop("mcp", {}),
    }
    return {"mcp": mcp, **settings}


def write_toolsets(path: Path, toolsets: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump({"toolsets": toolsets}, sort_keys=False))
    return path


def notes_log(folder: Path) -> list[str]:
    log = folder / "notes.log"
    return log.read_text().splitlines() if log.exists() else []


@contextmanager
def http_notes_server(folder: Path, port: int = 0) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The notes server over streamable HTTP on 127.0.0.1, as a process of this test's own
    (stopped by its PID); yields its MCP URL and the process."""
    import os

    process = subprocess.Popen(
        [sys.executable, "-m", SERVER_MODULE, "http", str(port)],
        cwd=ROOT,
        env={**os.environ, **notes_env(folder)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("port "):
            raise RuntimeError(f"the MCP server did not start: {line!r}")
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp", process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def process_running(pid: int) -> bool:
    """Whether the process is alive (a zombie, or a process gone, is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # gone before, or while, it was read
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def eventually(check: Callable[[], Awaitable[bool]], seconds: float = 15.0) -> None:
    """Wait until `check()` holds, polling; fail after `seconds` (a bound, not a measure)."""
    for _ in range(int(seconds / 0.05)):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not so within {seconds} s")
