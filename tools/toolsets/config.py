"""What the toolsets file (AGENTD_TOOLSETS_FILE) says: toolsets of MCP servers and of
declared HTTP tools, and what each sets for its tools (category, level, risk, timeout,
idempotency, cache time).

These are plain values, parsed and checked by `tools.toolsets.parsing`; two definitions
of a toolset are equal exactly when a reload would change nothing about it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from records.tools.model import PermissionLevel, RiskLevel, ToolSpec
from tools.builtin.addresses import IPNetwork

BUILTIN_CATEGORIES = frozenset({"math", "time", "web", "files", "data", "conversation"})
"""The categories of agentd's own tools (`ask_user`'s included): no toolset's tools may be
in one, so that a grant for `category:files` covers the built-in file tools only."""
DEFAULT_TIMEOUT_SECONDS = 30.0
DEFAULT_MAX_CONCURRENT_CALLS = 8


@dataclass(frozen=True, slots=True)
class ToolSettings:
    """What the file sets for a toolset's tools, or for one tool; None: not set here."""

    category: str | None = None
    level: PermissionLevel | None = None
    risk: RiskLevel | None = None
    timeout_seconds: float | None = None
    idempotent: bool | None = None
    cache_seconds: float | None = None
    progress_keeps_alive: bool | None = None
    """Progress reports count as liveness: `timeout_seconds` is the longest a call may go
    without one (`records.tools.model.ToolSpec.progress_keeps_alive`)."""
    resumable_errors: tuple[int, ...] | None = None
    """Error codes (MCP) or HTTP statuses (declared tools) of resumable failures."""

    def over(self, base: ToolSettings) -> ToolSettings:
        """These settings, with what they leave unset taken from `base`."""
        return ToolSettings(
            category=self.category if self.category is not None else base.category,
            level=self.level if self.level is not None else base.level,
            risk=self.risk if self.risk is not None else base.risk,
            timeout_seconds=(
                self.timeout_seconds if self.timeout_seconds is not None else base.timeout_seconds
            ),
            idempotent=self.idempotent if self.idempotent is not None else base.idempotent,
            cache_seconds=(
                self.cache_seconds if self.cache_seconds is not None else base.cache_seconds
            ),
            progress_keeps_alive=(
                self.progress_keeps_alive
                if self.progress_keeps_alive is not None
                else base.progress_keeps_alive
            ),
            resumable_errors=(
                self.resumable_errors
                if self.resumable_errors is not None
                else base.resumable_errors
            ),
        )


DEFAULTS = ToolSettings(
    level=PermissionLevel.EXECUTE,
    risk=RiskLevel.HIGH,
    timeout_seconds=DEFAULT_TIMEOUT_SECONDS,
    idempotent=False,
    cache_seconds=0.0,
)
"""What a toolset's tool gets for what the file (and its MCP annotations) leave unset."""


def tool_spec(
    toolset: str,
    settings: ToolSettings,
    *,
    name: str,
    description: str,
    parameters: Mapping[str, object],
    source: Literal["mcp", "http"],
) -> ToolSpec:
    """The spec of a toolset's tool, from its settings with DEFAULTS under them (the
    category: the toolset's name)."""
    chosen = settings.over(ToolSettings(category=toolset)).over(DEFAULTS)
    assert chosen.level is not None
    assert chosen.risk is not None
    return ToolSpec(
        name=name,
        description=description,
        parameters=dict(parameters),
        category=chosen.category or toolset,
        permission=chosen.level,
        risk=chosen.risk,
        idempotent=bool(chosen.idempotent),
        timeout_seconds=chosen.timeout_seconds or DEFAULT_TIMEOUT_SECONDS,
        cache_seconds=chosen.cache_seconds or 0.0,
        toolset=toolset,
        source=source,
        progress_keeps_alive=bool(chosen.progress_keeps_alive),
        resumable_errors=chosen.resumable_errors or (),
    )


@dataclass(frozen=True, slots=True)
class StdioServer:
    """An MCP server agentd runs as a child process and talks to over stdin/stdout."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables set for the server (over HOME, LOGNAME, PATH, SHELL, TERM and USER only:
    agentd's own environment is not passed on)."""
    cwd: str | None = None


@dataclass(frozen=True, slots=True)
class HttpServer:
    """An MCP server agentd reaches over streamable HTTP."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class McpSettings:
    """How agentd talks to one MCP server."""

    server: StdioServer | HttpServer
    protocol: Literal["auto", "legacy"] = "auto"
    """`auto`: the newest protocol both sides speak; `legacy`: the initialize handshake."""
    max_concurrent_calls: int = DEFAULT_MAX_CONCURRENT_CALLS
    """Calls in flight at once; more wait for a slot (within their timeout)."""


@dataclass(frozen=True, slots=True)
class HttpToolConfig:
    """A tool the file declares: one HTTP request made from the call's arguments."""

    name: str
    """The tool's own name; it is listed as `<toolset>.<name>`."""
    description: str
    method: str
    url: str
    """The URL template as written (`tools.toolsets.url_template`): `{argument}` is that
    argument's value, percent-encoded, in the path or query; `${VAR}` is read per request."""
    parameters: Mapping[str, object]
    """JSON Schema of the arguments (an object); only arguments it declares are sent."""
    headers: Mapping[str, str] = field(default_factory=dict)
    result: str = ""
    """A JMESPath expression applied to the JSON response; empty: the whole response."""
    settings: ToolSettings = ToolSettings()


@dataclass(frozen=True, slots=True)
class ToolsetConfig:
    """One toolset of the file."""

    name: str
    defaults: ToolSettings
    """What the toolset sets for all its tools."""
    overrides: Mapping[str, ToolSettings] = field(default_factory=dict)
    """What it sets for single tools of its MCP server, by the server's tool name."""
    mcp: McpSettings | None = None
    http_tools: tuple[HttpToolConfig, ...] = ()
    allowed_networks: tuple[IPNetwork, ...] = ()
    """Non-public networks its HTTP tools may reach (public addresses always may)."""
