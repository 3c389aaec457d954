"""Errors of tools, their permissions, grants and approvals."""

from __future__ import annotations

from collections.abc import Sequence

from core.errors.base import AgentdError, FieldViolation, InvalidArgumentError


class ToolNotFoundError(AgentdError):
    """No tool has the requested name (or the caller may not see it)."""

    reason = "TOOL_NOT_FOUND"

    def __init__(self, tool_name: str) -> None:
        self.tool_name = tool_name
        super().__init__(f"no tool named {tool_name!r}", metadata={"tool": tool_name})


class ToolArgumentsInvalidError(InvalidArgumentError):
    """Tool arguments that do not match the tool's JSON Schema."""

    reason = "TOOL_ARGUMENTS_INVALID"

    def __init__(self, tool_name: str, violations: Sequence[FieldViolation]) -> None:
        self.tool_name = tool_name
        super().__init__(
            violations,
            f"invalid arguments for tool {tool_name!r}: "
            + "; ".join(f"{v.field}: {v.description}" for v in violations),
        )
        self.metadata["tool"] = tool_name


class PathOutsideWorkspaceError(InvalidArgumentError):
    """A file tool was given a path that leaves its workspace."""

    reason = "PATH_OUTSIDE_WORKSPACE"

    def __init__(self, field: str, path: str, why: str) -> None:
        self.path = path
        super().__init__([FieldViolation(field, f"path {path!r} is outside the workspace ({why})")])


class DestinationNotAllowedError(AgentdError):
    """A network tool was asked to reach an address the server refuses."""

    reason = "DESTINATION_NOT_ALLOWED"

    def __init__(self, host: str, address: str, why: str) -> None:
        self.host = host
        self.address = address
        super().__init__(
            f"destination {host!r} ({address}) is not allowed: {why}",
            metadata={"host": host, "address": address},
        )


class PermissionDeniedError(AgentdError):
    """The caller's permissions do not cover the requested tool."""

    reason = "PERMISSION_DENIED"

    def __init__(self, tool_name: str, required: str, rule: str, detail: str = "") -> None:
        self.tool_name = tool_name
        self.required = required
        self.rule = rule
        super().__init__(
            f"permission denied for tool {tool_name!r}: {detail or f'it requires {required}'}",
            metadata={"tool": tool_name, "required_permission": required},
        )


class GrantAboveLimitError(AgentdError):
    """A grant asked for through the API above the level the API may give."""

    reason = "PERMISSION_DENIED"

    def __init__(self, level: str, limit: str) -> None:
        super().__init__(
            f"grants of level {level} cannot be made through the API (at most {limit}); "
            "an operator makes them with `agentd grants grant` on the database",
            metadata={"level": level, "limit": limit},
        )


class GrantNotFoundError(AgentdError):
    """No grant of that id is in force in the caller's tenant."""

    reason = "GRANT_NOT_FOUND"

    def __init__(self, grant_id: str) -> None:
        super().__init__(f"no grant {grant_id!r} in force", metadata={"grant_id": grant_id})


class ApprovalNotPendingError(AgentdError):
    """No call of that id waits for approval in that task."""

    reason = "APPROVAL_NOT_PENDING"

    def __init__(self, task_id: str, call_id: str) -> None:
        super().__init__(
            f"no tool call {call_id!r} of task {task_id!r} is waiting for approval",
            metadata={"task_id": task_id, "call_id": call_id},
        )


class ToolUnavailableError(AgentdError):
    """A tool that exists but cannot be called now: the MCP server behind it is down,
    restarting or not yet connected."""

    reason = "TOOL_UNAVAILABLE"

    def __init__(self, tool_name: str, why: str, retry_after_seconds: float | None = None) -> None:
        self.tool_name = tool_name
        self.why = why
        self._retry_after = retry_after_seconds
        super().__init__(f"tool {tool_name!r} is unavailable: {why}", metadata={"tool": tool_name})

    @property
    def retry_after_seconds(self) -> float | None:
        return self._retry_after


class GuardrailBlockedError(AgentdError):
    """A guardrail blocked the content of a call or a task: the check and the rule are
    named, never the text they matched."""

    reason = "GUARDRAIL_BLOCKED"

    def __init__(self, check: str, rule: str, point: str, detail: str = "") -> None:
        self.check = check
        self.rule = rule
        self.point = point
        where = point.replace("_", " ")
        super().__init__(
            f"blocked by guardrail {check!r} ({rule}) at the {where}"
            + (f": {detail}" if detail else ""),
            metadata={"check": check, "rule": rule, "point": point},
        )
