"""What a tool call came to: signals a tool raises, and the result the registry returns."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass

from records.parts import ImagePart
from records.tools.model import JSONValue, ToolFile


class ToolFailed(Exception):  # noqa: N818 - a signal, named for what it says
    """Raised by a tool that ran but could not do what was asked.

    This is not a fault of the service: the message goes back to the caller
    (or the model) as the tool's error result. `transient` says that the same call
    may well succeed if repeated (a dependency was briefly unavailable); the
    registry then retries it if the tool is idempotent. `outcome_unknown` says that the
    tool may have acted although it could not report back (its server died mid-call).
    `resumable` says that a person can fix the cause (out of credits): a task waits for
    ResumeTask, then runs the call again. `code` is the error code the tool's server
    answered (an MCP server's JSON-RPC code), for rules that read it.
    """

    def __init__(
        self,
        message: str,
        *,
        transient: bool = False,
        outcome_unknown: bool = False,
        resumable: bool = False,
        code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.transient = transient
        self.outcome_unknown = outcome_unknown
        self.resumable = resumable
        self.code = code


class ToolErrorKind(enum.Enum):
    """Why a tool call that ran produced no result."""

    FAILED = "failed"
    TIMEOUT = "timeout"
    CRASHED = "crashed"
    OUTCOME_UNKNOWN = "outcome_unknown"
    """The process running a call that may not be repeated stopped before it reported back."""
    REJECTED = "rejected"
    """A human rejected the call it was asked to approve; the tool did not run."""
    RESUMABLE = "resumable"
    """The tool failed for a reason a person can fix (its server said so by a declared
    error code or status): a task waits for ResumeTask, then runs the call again."""
    UNAVAILABLE = "unavailable"
    """The tool could not be called (its MCP server is down, or it was removed from the
    toolsets after the task started); it did not run."""


@dataclass(frozen=True, slots=True)
class ToolCallError:
    """The failure of a tool call that ran."""

    kind: ToolErrorKind
    """What kind of failure."""
    message: str
    """An explanation for a human or a model."""


@dataclass(frozen=True, slots=True)
class ToolCallResult:
    """The outcome of one tool call that was allowed to run."""

    call_id: str
    """Identifies the call in logs and audit records."""
    tool_name: str
    """The tool that ran."""
    data: JSONValue
    """The structured result; None when `error` is set."""
    text: str
    """The result (or the error) as text."""
    duration_seconds: float
    """How long the tool ran."""
    error: ToolCallError | None = None
    """Set when the tool failed, timed out or crashed."""
    cached: bool = False
    """The result of an earlier call, from the cache: the tool did not run."""
    files: tuple[ToolFile, ...] = ()
    """Files the tool returned, with their bytes, on their way to the door of tool calls
    (`agent.tool_use.files`), which keeps them as artifacts and empties this: never
    serialized, cached, audited or journalled."""
    images: tuple[ImagePart, ...] = ()
    """Images (kept artifacts) to show a seeing model with the result, on the tool
    message (`records.messages.Message.parts`)."""

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> str:
        return json.dumps(
            {
                "call_id": self.call_id,
                "tool_name": self.tool_name,
                "data": self.data,
                "text": self.text,
                "duration_seconds": self.duration_seconds,
                "error": None
                if self.error is None
                else {"kind": self.error.kind.value, "message": self.error.message},
                "cached": self.cached,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> ToolCallResult:
        raw = json.loads(text)
        error = raw["error"]
        return cls(
            call_id=raw["call_id"],
            tool_name=raw["tool_name"],
            data=raw["data"],
            text=raw["text"],
            duration_seconds=raw["duration_seconds"],
            error=None
            if error is None
            else ToolCallError(ToolErrorKind(error["kind"]), error["message"]),
            cached=bool(raw.get("cached", False)),
        )
