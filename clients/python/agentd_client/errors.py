"""Exceptions the client raises, rebuilt from the server's `google.rpc.Status`.

The class is chosen by `ErrorInfo.reason` (the same names as `agentd.v1.ErrorReason`
without the prefix); when the reason is missing or unknown, by the gRPC status code.
Every class carries the status code, the reason, the message, the ErrorInfo metadata,
the field violations and the retry delay the server sent.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc

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


class TraceNotFoundError(NotFoundError):
    """No trace is kept of that task (never recorded, or its retention passed)."""


class DatasetNotFoundError(NotFoundError):
    """No dataset of that id in your tenant."""


class EvalRunNotFoundError(NotFoundError):
    """No evaluation run of that id in your tenant."""


class ScheduleNotFoundError(NotFoundError):
    """No schedule of that id in your tenant."""


class TriggerNotFoundError(NotFoundError):
    """No trigger of that id in your tenant."""


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


class ArtifactTooLargeError(FailedPreconditionError):
    """The version is too large for one GetArtifact answer: use `read_artifact` or
    `download_artifact`; `metadata` names it and its size."""


class InputPartUnavailableError(FailedPreconditionError):
    """A URL given as an input part could not be fetched; `metadata["part"]` names it."""


class ScheduleNotActiveError(FailedPreconditionError):
    """TriggerSchedule on a paused or ended schedule; `metadata` names it and its state."""


class EtagMismatchError(AbortedError):
    """The resource changed since you read it (its etag is not the one sent): read again."""


class PromotionRefusedError(FailedPreconditionError):
    """The version has no evaluation run that passed its gate (AGENTD_PROMOTION_GATE)."""


class EventsExpiredError(FailedPreconditionError):
    """The requested events are no longer retained."""


class DeadlineExceededError(AgentdError):
    """The call's deadline passed."""


class InternalError(AgentdError):
    """A server fault; quote the trace id in `metadata`."""
