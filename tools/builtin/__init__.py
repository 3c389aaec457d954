"""The tools agentd ships with."""

from __future__ import annotations

from pathlib import Path

from tools.builtin.calculator import Calculator
from tools.builtin.clock import CurrentTime
from tools.builtin.files import DEFAULT_MAX_FILE_BYTES, ListFiles, ReadFile, Workspace, WriteFile
from tools.builtin.http import HttpLimits, HttpRequest
from tools.builtin.json_query import JsonQuery
from tools.model import Tool


def builtin_tools(
    workspace: Path,
    http: HttpLimits | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> list[Tool]:
    """One instance of every built-in tool, configured."""
    ws = Workspace(workspace)
    return [
        Calculator(),
        CurrentTime(),
        HttpRequest(http),
        ReadFile(ws, max_file_bytes),
        WriteFile(ws, max_file_bytes),
        ListFiles(ws),
        JsonQuery(),
    ]


__all__ = ["HttpLimits", "Workspace", "builtin_tools"]
