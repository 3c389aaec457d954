"""Exceptions the client raises, rebuilt from the server's `google.rpc.Status`.

The class is chosen by `ErrorInfo.reason` (the same names as `agentd.v1.ErrorReason`
without the prefix); when the reason is missing or unknown, by the gRPC status code.
Every class carries the status code, the reason, the message, the ErrorInfo metadata,
the field violations and the retry delay the server sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

DOMAIN = "agentd"
DETAILS_KEY = "grpc-status-details-bin"


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One problem with one field of the request."""

    field: str
    """Path of the field, e.g. `arguments.expression`."""
    description: str
    """What is wrong with it."""


class AgentdError(Exception):
    """A call to agentd failed."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str = "",
        metadata: dict[str, str] | None = None,
        field_violations: tuple[FieldViolation, ...] = (),
        retry_after_seconds: float | None = None,
        quota_violations: tuple[FieldViolation, ...] = (),
    ) -> None:
        said = code.name if reason in ("", code.name) else f"{code.name} {reason}"
        super().__init__(f"{said}: {message}")
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata = metadata or {}
        self.field_violations = field_violations
        self.retry_after_seconds = retry_after_seconds
        self.quota_violations = quota_violations
        """The quotas with no room (`google.rpc.QuotaFailure`): each subject (`budget:<id>`)
        in `field`, what is exhausted in `description`."""


class InvalidArgumentError(AgentdError):
    """The request was malformed; see `field_violations`."""


class RequestTooLargeError(InvalidArgumentError):
    """A part of the request exceeds a size limit."""


class ToolArgumentsInvalidError(InvalidArgumentError):
    """Tool arguments do not match the tool's schema."""


class PathOutsideWorkspaceError(InvalidArgumentError):
    """A file tool was given a path outside its workspace."""


class NotFoundError(AgentdError):
    """The thing asked for does not exist (or is not visible to the caller)."""


class ToolNotFoundError(NotFoundError):
    """No tool has that name."""


class TaskNotFoundError(NotFoundError):
    """No task has that id."""


class PermissionDeniedError(AgentdError):
    """The caller may not do this."""


class DestinationNotAllowedError(PermissionDeniedError):
    """A network tool was asked to reach a refused address."""


class UnauthenticatedError(AgentdError):
    """Missing or invalid credentials."""


class FailedPreconditionError(AgentdError):
    """The system is not in a state that allows the call."""


class TaskAlreadyTerminalError(FailedPreconditionError):
    """The task has already ended."""


class LLMNotConfiguredError(FailedPreconditionError):
    """The server has no language model configured."""


class UnimplementedError(AgentdError):
    """The server does not serve this call."""


class UnavailableError(AgentdError):
    """The server (or a service behind it) is not available; retry later or elsewhere."""


class ShuttingDownError(UnavailableError):
    """The server is draining."""


class LLMUnavailableError(UnavailableError):
    """The language model endpoint failed."""


class ToolUnavailableError(UnavailableError):
    """The tool's MCP server is down or restarting; retry after `retry_after_seconds`."""


class StoreUnavailableError(UnavailableError):
    """Redis or the database behind the server is unavailable or overloaded; retry after
    `retry_after_seconds` (a stream: resume with StreamTaskEvents)."""


class ResourceExhaustedError(AgentdError):
    """A rate or capacity limit was hit; see `retry_after_seconds`."""


class RateLimitedError(ResourceExhaustedError):
    """The caller's (or its tenant's) rate limit was hit; see `retry_after_seconds`."""


class BudgetExhaustedError(ResourceExhaustedError):
    """A budget of the tenant, the user or the agent has no room: the task cannot start.
    `quota_violations` names the budget (`budget:<id>`); `retry_after_seconds` says when its
    window starts afresh (None for a budget over all time)."""


class WebhookNotFoundError(NotFoundError):
    """No webhook of that id in your tenant."""


class BudgetNotFoundError(NotFoundError):
    """No budget of that id in your tenant."""


class ApprovalNotPendingError(NotFoundError):
    """No tool call of that id waits for approval in that task."""


class GrantNotFoundError(NotFoundError):
    """No grant of that id is in force in your tenant."""


class AgentNotFoundError(NotFoundError):
    """No agent of that id (or that version of it) is available."""


class ConversationNotFoundError(NotFoundError):
    """No conversation of that id is visible to you (also another tenant's)."""


class ArtifactNotFoundError(NotFoundError):
    """The task has no artifact of that name (or not that version of it)."""


class GuardrailBlockedError(PermissionDeniedError):
    """A guardrail blocked the content; `metadata` names the check and the rule (never
    the text). A task it stops ends FAILED with STOP_REASON_GUARDRAIL."""


class ConversationBusyError(FailedPreconditionError):
    """A task of the conversation runs (or waits) and the request's busy policy is
    REJECT; `metadata["task_id"]` names it."""


class TaskNotResumableError(FailedPreconditionError):
    """ResumeTask found no tool call of the task waiting to be resumed (it runs, waits for
    something else, or has ended: its resume window closed, say)."""


class EmbeddingsUnavailableError(UnavailableError):
    """The embeddings endpoint failed or answered vectors of the wrong shape; nothing
    was stored."""


class EmbeddingModelChangedError(FailedPreconditionError):
    """The memory store holds vectors of another embedding model; re-index first."""


class MemoryUnavailableError(FailedPreconditionError):
    """Memory and knowledge bases are off on this server (no embedding model, or no
    `vector` extension in its PostgreSQL)."""


class MemoryNotFoundError(NotFoundError):
    """No memory, knowledge base, document or ingestion job of that id."""


class AlreadyExistsError(AgentdError):
    """The thing to be created exists already."""


class BudgetExistsError(AlreadyExistsError):
    """Your tenant has a budget of that scope, subject, unit and window."""


class KnowledgeBaseExistsError(AlreadyExistsError):
    """The tenant already has a knowledge base of that id."""


class AgentExistsError(AlreadyExistsError):
    """Your tenant has an agent of that id already (or an update raced another)."""


class IdempotencyConflictError(AlreadyExistsError):
    """The idempotency key was used with a different request."""


class AbortedError(AgentdError):
    """The operation was aborted; retrying the whole operation may succeed."""


class ModelOutputInvalidError(AgentdError):
    """The model's replies could not be used."""


class ContextTooLongError(InvalidArgumentError):
    """A model request did not fit the model's context window, even compacted."""


class TaskLimitReachedError(AgentdError):
    """A limit stopped a task before any usable result (appears in `Task.error`)."""


class ToolResumableError(AgentdError):
    """A tool call of a task failed for a reason a person can fix and the task was not
    resumed within its window (appears in `Task.error`)."""


class WaitDeadlineError(AgentdError):
    """What a task waited for (a person, its children, a remote agent, its turn) did not
    come before the wait's deadline (appears in `Task.error`)."""


class ServerRestartedError(AgentdError):
    """The task waited on a server without Redis that restarted (appears in
    `Task.error`)."""


class PlanInvalidError(AbortedError):
    """The planner could not produce a valid plan."""


class KeyRequiredError(FailedPreconditionError):
    """A secret is stored or read with no key for it: the server's AGENTD_KEYS."""


class EventsExpiredError(FailedPreconditionError):
    """The requested events are no longer retained."""


class DeadlineExceededError(AgentdError):
    """The call's deadline passed."""


class InternalError(AgentdError):
    """A server fault; quote the trace id in `metadata`."""


BY_REASON: dict[str, type[AgentdError]] = {
    "INVALID_ARGUMENT": InvalidArgumentError,
    "REQUEST_TOO_LARGE": RequestTooLargeError,
    "TOOL_NOT_FOUND": ToolNotFoundError,
    "TOOL_ARGUMENTS_INVALID": ToolArgumentsInvalidError,
    "PATH_OUTSIDE_WORKSPACE": PathOutsideWorkspaceError,
    "DESTINATION_NOT_ALLOWED": DestinationNotAllowedError,
    "PERMISSION_DENIED": PermissionDeniedError,
    "TASK_NOT_FOUND": TaskNotFoundError,
    "TASK_ALREADY_TERMINAL": TaskAlreadyTerminalError,
    "NOT_IMPLEMENTED": UnimplementedError,
    "SHUTTING_DOWN": ShuttingDownError,
    "UNAUTHENTICATED": UnauthenticatedError,
    "RESOURCE_EXHAUSTED": ResourceExhaustedError,
    "LLM_NOT_CONFIGURED": LLMNotConfiguredError,
    "LLM_UNAVAILABLE": LLMUnavailableError,
    "PLAN_INVALID": PlanInvalidError,
    "IDEMPOTENCY_CONFLICT": IdempotencyConflictError,
    "EVENTS_EXPIRED": EventsExpiredError,
    "DEADLINE_EXCEEDED": DeadlineExceededError,
    "INTERNAL": InternalError,
    "MODEL_OUTPUT_INVALID": ModelOutputInvalidError,
    "APPROVAL_NOT_PENDING": ApprovalNotPendingError,
    "RATE_LIMITED": RateLimitedError,
    "GRANT_NOT_FOUND": GrantNotFoundError,
    "AGENT_NOT_FOUND": AgentNotFoundError,
    "AGENT_EXISTS": AgentExistsError,
    "CONVERSATION_NOT_FOUND": ConversationNotFoundError,
    "CONVERSATION_BUSY": ConversationBusyError,
    "STORE_UNAVAILABLE": StoreUnavailableError,
    "TASK_LIMIT_REACHED": TaskLimitReachedError,
    "TOOL_UNAVAILABLE": ToolUnavailableError,
    "ARTIFACT_NOT_FOUND": ArtifactNotFoundError,
    "TASK_NOT_RESUMABLE": TaskNotResumableError,
    "TOOL_RESUMABLE": ToolResumableError,
    "CONTEXT_TOO_LONG": ContextTooLongError,
    "EMBEDDINGS_UNAVAILABLE": EmbeddingsUnavailableError,
    "EMBEDDING_MODEL_CHANGED": EmbeddingModelChangedError,
    "MEMORY_UNAVAILABLE": MemoryUnavailableError,
    "MEMORY_NOT_FOUND": MemoryNotFoundError,
    "KNOWLEDGE_BASE_EXISTS": KnowledgeBaseExistsError,
    "WAIT_DEADLINE": WaitDeadlineError,
    "SERVER_RESTARTED": ServerRestartedError,
    "GUARDRAIL_BLOCKED": GuardrailBlockedError,
    "BUDGET_EXHAUSTED": BudgetExhaustedError,
    "BUDGET_NOT_FOUND": BudgetNotFoundError,
    "BUDGET_EXISTS": BudgetExistsError,
    "WEBHOOK_NOT_FOUND": WebhookNotFoundError,
    "KEY_REQUIRED": KeyRequiredError,
}

BY_CODE: dict[grpc.StatusCode, type[AgentdError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.OUT_OF_RANGE: InvalidArgumentError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.UNIMPLEMENTED: UnimplementedError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExistsError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.INTERNAL: InternalError,
    grpc.StatusCode.ABORTED: AbortedError,
}


def _unpack(detail: any_pb2.Any, message: object) -> bool:
    return bool(detail.Unpack(message))  # type: ignore[arg-type]


def from_rpc_error(error: grpc.RpcError) -> AgentdError:
    """The typed exception for a failed call (of grpc.aio, whose AioRpcError is an
    RpcError, or of grpc's synchronous channel, whose errors are also its calls)."""
    code = error.code()
    message = error.details() or ""
    reason = ""
    metadata: dict[str, str] = {}
    violations: list[FieldViolation] = []
    quotas: list[FieldViolation] = []
    retry_after: float | None = None
    trailers = cast(Iterable[tuple[str, str | bytes]], error.trailing_metadata() or ())
    for key, value in trailers:
        if key != DETAILS_KEY or not isinstance(value, bytes):
            continue
        try:
            status = status_pb2.Status.FromString(value)
        except DecodeError:
            continue  # the status code and message still say what happened
        message = status.message or message
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            bad = error_details_pb2.BadRequest()
            retry = error_details_pb2.RetryInfo()
            quota = error_details_pb2.QuotaFailure()
            if detail.Is(info.DESCRIPTOR) and _unpack(detail, info) and info.domain == DOMAIN:
                reason = info.reason
                metadata = dict(info.metadata)
            elif detail.Is(bad.DESCRIPTOR) and _unpack(detail, bad):
                violations.extend(
                    FieldViolation(v.field, v.description) for v in bad.field_violations
                )
            elif detail.Is(retry.DESCRIPTOR) and _unpack(detail, retry):
                retry_after = retry.retry_delay.ToTimedelta().total_seconds()
            elif detail.Is(quota.DESCRIPTOR) and _unpack(detail, quota):
                quotas.extend(FieldViolation(v.subject, v.description) for v in quota.violations)
    cls = BY_REASON.get(reason) or BY_CODE.get(code, AgentdError)
    return cls(
        code,
        message,
        reason=reason,
        metadata=metadata,
        field_violations=tuple(violations),
        retry_after_seconds=retry_after,
        quota_violations=tuple(quotas),
    )
