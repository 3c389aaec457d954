"""What a tool is: its specification and the one method it runs."""

from __future__ import annotations

import abc
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from core.identity import CallContext
from records.parts import ImagePart

JSONValue = Any
"""A value that JSON can represent (dict, list, str, int, float, bool or None)."""

TOOLSET_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
"""A toolset's name (AGENTD_TOOLSETS_FILE): its tools are named `<toolset>.<tool>`."""
TOOL_NAME_PATTERN = re.compile(
    r"^(?=.{1,128}$)[a-z][a-z0-9_]{0,63}(?:\.[A-Za-z0-9_][A-Za-z0-9_.-]*)?$"
)
"""Any tool's name: a built-in's, or `<toolset>.<tool>` where the tool part is an MCP tool's
name (letters, digits and `. _ -`); 128 characters at most, as at the door (`core.names`)."""
WIRE_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""A function name an OpenAI-compatible API accepts."""
_NOT_ON_THE_WIRE = re.compile(r"[^A-Za-z0-9_-]")


def wire_forms(name: str) -> tuple[str, str]:
    """The two names a tool whose own name an OpenAI-compatible API refuses (`notes.search`)
    may go by there: every other character replaced by `_` and cut to 64 (`notes_search`),
    and, when that is taken or the name too long, that with a digest of the name."""
    plain = _NOT_ON_THE_WIRE.sub("_", name)[:64] or "_"
    return plain, f"{plain[:53]}_{hashlib.sha256(name.encode()).hexdigest()[:10]}"


class PermissionLevel(IntEnum):
    """How much a principal may do with tools; each level includes the ones below."""

    NONE = 1
    READ = 2
    WRITE = 3
    EXECUTE = 4
    ADMIN = 5


class RiskLevel(IntEnum):
    """How much harm a tool can do if misused."""

    LOW = 1
    MEDIUM = 2
    HIGH = 3
    CRITICAL = 4


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """Everything a caller, a model or the policy needs to know about a tool."""

    name: str
    """Unique name (TOOL_NAME_PATTERN): `calculator`, or `notes.search` for a toolset's."""
    description: str
    """What the tool does, written for a language model."""
    parameters: Mapping[str, JSONValue]
    """JSON Schema (draft 2020-12) of the arguments object."""
    category: str
    """A coarse grouping: math, time, web, files, data."""
    permission: PermissionLevel
    """The level a caller needs to use the tool."""
    risk: RiskLevel
    """How much harm the tool can do."""
    idempotent: bool
    """Whether repeating a call with the same arguments is safe."""
    timeout_seconds: float
    """The longest one call may run before it is stopped."""
    cache_seconds: float = 0.0
    """How long a successful result is reused for the same tenant and arguments; 0: never.
    Only a read-only (NONE or READ) idempotent tool may have results cached."""
    toolset: str = ""
    """The toolset (AGENTD_TOOLSETS_FILE) the tool belongs to; empty for a built-in."""
    source: str = "builtin"
    """Where the tool comes from: `builtin`, `mcp` (an MCP server's) or `http` (declared)."""
    progress_keeps_alive: bool = False
    """Progress reports (`tools.progress`) count as liveness: `timeout_seconds` is the
    longest the call may go without one, not its whole run (the caller's deadline still
    bounds it)."""
    resumable_errors: tuple[int, ...] = ()
    """Error codes that make a failure resumable (`ToolErrorKind.RESUMABLE`): JSON-RPC
    codes of an MCP server's errors, HTTP statuses of a declared HTTP tool's answers."""

    @property
    def cacheable(self) -> bool:
        """Whether results of this tool may be cached at all."""
        return self.idempotent and self.permission <= PermissionLevel.READ

    def __post_init__(self) -> None:
        if not TOOL_NAME_PATTERN.fullmatch(self.name):
            raise ValueError(f"invalid tool name {self.name!r}")
        if self.parameters.get("type") != "object":
            raise ValueError(f"tool {self.name!r}: parameters must be a JSON Schema object")
        if self.timeout_seconds <= 0:
            raise ValueError(f"tool {self.name!r}: timeout must be positive")
        if self.cache_seconds < 0:
            raise ValueError(f"tool {self.name!r}: cache_seconds cannot be negative")
        if self.cache_seconds and not self.cacheable:
            raise ValueError(
                f"tool {self.name!r} cannot be cached: only idempotent tools needing at most "
                "READ permission can"
            )


@dataclass(frozen=True, slots=True)
class ToolFile:
    """A file a tool returns (an MCP image or embedded resource, a binary HTTP body): the
    one door of tool calls keeps it as an artifact of the task, under the artifact limits,
    and tells the model its name and type; an image is shown to a seeing model on the next
    call."""

    name: str
    """A name for it; the door makes it a valid artifact name, unique in the task's tree."""
    media_type: str
    content: bytes


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a tool returns."""

    data: JSONValue
    """The structured result."""
    text: str
    """The result rendered as text, as a model sees it."""
    files: tuple[ToolFile, ...] = ()
    """Files to keep as artifacts of the task (`ToolFile`)."""
    images: tuple[ImagePart, ...] = ()
    """Images already kept as artifacts to show a seeing model with the result (what
    `read_artifact` returns for an image)."""


class Tool(abc.ABC):
    """A tool. Subclasses set `spec` and implement `run`.

    `run` receives arguments that already match `spec.parameters`; it is
    called concurrently from many tasks, so it keeps no per-call state on the
    instance. It may be cancelled at any await (timeouts, task cancellation).
    It reports an expected failure by raising `records.tools.outcomes.ToolFailed`, a
    refusal of its input by raising an `AgentdError` (for example
    `PathOutsideWorkspaceError`); anything else it raises is treated as a crash.
    Blocking work (file I/O) runs in a thread, never on the event loop.
    """

    spec: ToolSpec

    @abc.abstractmethod
    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        """Run the tool once."""

    def unavailable(self) -> str:
        """Why the tool cannot be called now (its server is down), or "" when it can."""
        return ""
