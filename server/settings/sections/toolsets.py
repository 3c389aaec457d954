"""Toolsets: MCP servers and declared HTTP tools from a file (AGENTD_TOOLSETS_FILE)."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from server.settings.base import Section


class ToolsetSettings(Section):
    toolsets_file: Path | None = Field(
        None,
        description="a YAML file of toolsets (MCP servers, declared HTTP tools), read at start "
        "and again when it changes",
    )
    toolsets_reload_seconds: float = Field(
        2.0, gt=0, description="how often the toolsets file is checked for changes"
    )
    toolsets_max_result_bytes: int = Field(
        1_000_000,
        gt=0,
        description="largest message an MCP server may send (a tool's result, as JSON) and "
        "largest answer a declared HTTP tool reads; a longer one fails its call unread",
    )
    toolsets_start_seconds: float = Field(
        15.0,
        ge=0,
        description="how long start-up waits for each MCP server's first connection",
    )
    toolsets_connect_seconds: float = Field(
        20.0, gt=0, description="the longest connecting to an MCP server and listing its tools take"
    )
    toolsets_restart_initial_seconds: float = Field(
        0.5, gt=0, description="the first wait before reconnecting a lost MCP server (it doubles)"
    )
    toolsets_restart_max_seconds: float = Field(
        30.0, gt=0, description="the longest wait before reconnecting a lost MCP server"
    )
    toolsets_ping_seconds: float = Field(
        15.0,
        ge=0,
        description="how often a connected MCP server is pinged; one that does not answer "
        "within AGENTD_TOOLSETS_CONNECT_SECONDS is lost (and restarted); 0: never",
    )
