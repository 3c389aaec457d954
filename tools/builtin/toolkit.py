"""The built-in toolkit: one instance of every tool agentd ships with, configured (its
workspace, HTTP limits, file sizes and artifact store). A new built-in tool is a module
of this package and a line here."""

from __future__ import annotations

from pathlib import Path

from records.tools.model import Tool
from stores.artifacts.base import ArtifactStore
from stores.artifacts.memory import InMemoryArtifactStore
from tools.builtin.artifacts import ArtifactLimits, ReadArtifact, WriteArtifact
from tools.builtin.calculator import Calculator
from tools.builtin.clock import CurrentTime
from tools.builtin.files import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_FILES,
    DEFAULT_QUOTA,
    ListFiles,
    ReadFile,
    Workspace,
    WriteFile,
)
from tools.builtin.http import HttpLimits, HttpRequest
from tools.builtin.json_query import JsonQuery


def builtin_tools(
    workspace: Path,
    http: HttpLimits | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    *,
    workspace_quota: tuple[int, int] = (DEFAULT_QUOTA, DEFAULT_MAX_FILES),
    artifacts: ArtifactStore | None = None,
    artifact_limits: ArtifactLimits | None = None,
) -> list[Tool]:
    """One instance of every built-in tool, configured. `workspace_quota`: the bytes and
    the entries the workspace may hold; `artifacts`: where the artifact tools keep
    artifacts (in this process when None)."""
    ws = Workspace(workspace, *workspace_quota)
    store = artifacts if artifacts is not None else InMemoryArtifactStore()
    return [
        Calculator(),
        CurrentTime(),
        HttpRequest(http),
        ReadFile(ws, max_file_bytes),
        WriteFile(ws, max_file_bytes),
        ListFiles(ws),
        JsonQuery(),
        WriteArtifact(store, artifact_limits),
        ReadArtifact(store),
    ]
