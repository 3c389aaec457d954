"""The one error hierarchy of agentd.

Every failure reported to a caller is an `AgentdError`. Each class carries a
`reason` (an `agentd.v1.ErrorReason` name without its prefix) and typed
attributes; its message is built from them. The transport maps classes to
gRPC status codes in one table (`server/status.py`), looked up along the MRO,
so a subclass never falls through to UNKNOWN.

Control-flow signals of tools (a tool reporting "failed, tell the model") are
not errors of this tree; see `tools.outcomes`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One problem with one field of a request."""

    field: str
    """Path of the offending field, e.g. `arguments.expression`."""
    description: str
    """What is wrong with it."""


class AgentdError(Exception):
    """Base of every error agentd reports to callers."""

    reason: ClassVar[str] = "INTERNAL"

    def __init__(self, message: str, *, metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.metadata: dict[str, str] = dict(metadata or {})

    @property
    def field_violations(self) -> tuple[FieldViolation, ...]:
        return ()

    @property
    def retry_after_seconds(self) -> float | None:
        return None


MAX_VIOLATIONS = 20
"""Field violations reported at most; the last one says how many more there were."""
MAX_DESCRIPTION = 500


def _bounded(violations: Sequence[FieldViolation]) -> tuple[FieldViolation, ...]:
    """At most MAX_VIOLATIONS violations of bounded size, so the status always fits in
    the trailers (whatever the request held)."""
    kept = [
        FieldViolation(v.field[:MAX_DESCRIPTION], v.description[:MAX_DESCRIPTION])
        for v in violations[:MAX_VIOLATIONS]
    ]
    if len(violations) > MAX_VIOLATIONS:
        more = len(violations) - MAX_VIOLATIONS + 1
        kept[-1] = FieldViolation("request", f"... and {more} more problems like these")
    return tuple(kept)


class InvalidArgumentError(AgentdError):
    """The request is malformed; each problem is one field violation (at most
    MAX_VIOLATIONS are reported)."""

    reason = "INVALID_ARGUMENT"

    def __init__(self, violations: Sequence[FieldViolation], message: str | None = None) -> None:
        if not violations:
            raise ValueError("InvalidArgumentError needs at least one violation")
        self.violations = _bounded(violations)
        if message is None:
            message = "invalid request: " + "; ".join(
                f"{v.field}: {v.description}" for v in self.violations
            )
        super().__init__(message)

    @property
    def field_violations(self) -> tuple[FieldViolation, ...]:
        return self.violations


class RequestTooLargeError(InvalidArgumentError):
    """A field of the request exceeds its size limit."""

    reason = "REQUEST_TOO_LARGE"

    def __init__(self, field: str, size: int, limit: int) -> None:
        self.field = field
        self.size = size
        self.limit = limit
        super().__init__(
            [FieldViolation(field, f"is {size} bytes, more than the limit of {limit} bytes")]
        )


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


class TaskNotFoundError(AgentdError):
    """No task with that id is visible to the caller."""

    reason = "TASK_NOT_FOUND"

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        super().__init__(f"no task with id {task_id!r}", metadata={"task_id": task_id})


class TaskAlreadyTerminalError(AgentdError):
    """The task has ended and cannot be changed any more."""

    reason = "TASK_ALREADY_TERMINAL"

    def __init__(self, task_id: str, status: str) -> None:
        self.task_id = task_id
        self.status = status
        super().__init__(
            f"task {task_id!r} has already ended ({status})",
            metadata={"task_id": task_id, "status": status},
        )


class UnimplementedError(AgentdError):
    """An RPC of the contract that this server does not serve yet."""

    reason = "NOT_IMPLEMENTED"

    def __init__(self, method: str, detail: str) -> None:
        self.method = method
        super().__init__(f"{method} is not available on this server: {detail}")


class UnauthenticatedError(AgentdError):
    """No valid credentials. The message is the same whatever was wrong with them."""

    reason = "UNAUTHENTICATED"

    def __init__(self) -> None:
        super().__init__(
            "missing or invalid credentials: send 'authorization: Bearer <API key or JWT>'"
        )


class ShuttingDownError(AgentdError):
    """The server is draining and takes no new work."""

    reason = "SHUTTING_DOWN"

    def __init__(self) -> None:
        super().__init__("the server is shutting down; retry on another replica")


class DeadlineExceededError(AgentdError):
    """The call's deadline passed before it could finish."""

    reason = "DEADLINE_EXCEEDED"


class ResourceExhaustedError(AgentdError):
    """A capacity or rate limit was hit; retry after `retry_after_seconds`."""

    reason = "RESOURCE_EXHAUSTED"

    def __init__(self, message: str, retry_after_seconds: float) -> None:
        self._retry_after = retry_after_seconds
        super().__init__(message)

    @property
    def retry_after_seconds(self) -> float | None:
        return self._retry_after


class StoreUnavailableError(AgentdError):
    """Redis or the database could not be reached, or stayed overloaded past its wait limit.

    Nothing was lost: the call did not take effect, or took effect completely
    (writes are atomic). Retry after `retry_after_seconds`.
    """

    reason = "STORE_UNAVAILABLE"

    def __init__(self, store: str, detail: str, retry_after_seconds: float = 1.0) -> None:
        self.store = store
        self.detail = detail
        self._retry_after = retry_after_seconds
        super().__init__(
            f"{store} is unavailable or overloaded ({detail}); retry shortly",
            metadata={"store": store},
        )

    @property
    def retry_after_seconds(self) -> float | None:
        return self._retry_after


class EventsExpiredError(AgentdError):
    """The task is known, but its event log is past retention and was dropped."""

    reason = "EVENTS_EXPIRED"

    def __init__(self, task_id: str, last_sequence: int) -> None:
        self.task_id = task_id
        self.last_sequence = last_sequence
        super().__init__(
            f"the events of task {task_id!r} are no longer retained; GetTask still has "
            "its final state",
            metadata={"task_id": task_id, "last_sequence": str(last_sequence)},
        )


class IdempotencyConflictError(AgentdError):
    """The idempotency key was already used with a different request."""

    reason = "IDEMPOTENCY_CONFLICT"

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(
            f"idempotency key {self.key!r} was already used with a different request",
            metadata={"idempotency_key": self.key},
        )


class LLMNotConfiguredError(AgentdError):
    """No language model is configured; names the settings to set."""

    reason = "LLM_NOT_CONFIGURED"

    def __init__(self, settings: tuple[str, ...]) -> None:
        self.settings = settings
        super().__init__(
            "no language model is configured; set " + ", ".join(settings) + " and restart agentd",
            metadata={"settings": ",".join(settings)},
        )


class LLMUnavailableError(AgentdError):
    """The model endpoint failed or could not be reached."""

    reason = "LLM_UNAVAILABLE"


class PlanInvalidError(AgentdError):
    """The planner could not produce a valid plan, even after a repair attempt."""

    reason = "PLAN_INVALID"

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("the planner did not produce a valid plan: " + "; ".join(problems))


class InternalError(AgentdError):
    """An unexpected fault; the message names the trace id to quote."""

    reason = "INTERNAL"

    def __init__(self, trace_id: str) -> None:
        self.trace_id = trace_id
        super().__init__(
            f"internal error; quote trace id {trace_id} when reporting it",
            metadata={"trace_id": trace_id},
        )


class ApprovalNotPendingError(AgentdError):
    """No call of that id waits for approval in that task."""

    reason = "APPROVAL_NOT_PENDING"

    def __init__(self, task_id: str, call_id: str) -> None:
        super().__init__(
            f"no tool call {call_id!r} of task {task_id!r} is waiting for approval",
            metadata={"task_id": task_id, "call_id": call_id},
        )


class RoleRequiredError(AgentdError):
    """The operation needs a role the caller does not hold."""

    reason = "PERMISSION_DENIED"

    def __init__(self, operation: str, roles: tuple[str, ...]) -> None:
        super().__init__(
            f"{operation} needs one of the roles: {', '.join(roles)}",
            metadata={"roles": ",".join(roles)},
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


class RateLimitedError(ResourceExhaustedError):
    """The caller (or its tenant) made more calls than its rate allows."""

    reason = "RATE_LIMITED"


class GrantNotFoundError(AgentdError):
    """No grant of that id is in force in the caller's tenant."""

    reason = "GRANT_NOT_FOUND"

    def __init__(self, grant_id: str) -> None:
        super().__init__(f"no grant {grant_id!r} in force", metadata={"grant_id": grant_id})


class AgentNotFoundError(AgentdError):
    """No agent of that id (or that version of it) is available to the caller."""

    reason = "AGENT_NOT_FOUND"

    def __init__(self, reference: str) -> None:
        super().__init__(f"no agent {reference!r}", metadata={"agent": reference})


class AgentExistsError(AgentdError):
    """The tenant already has an agent of that id (or that version was just taken)."""

    reason = "AGENT_EXISTS"

    def __init__(self, agent_id: str) -> None:
        super().__init__(f"agent {agent_id!r} exists already", metadata={"agent": agent_id})
