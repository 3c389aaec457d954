"""The typed exception for a failed call: the class chosen by `ErrorInfo.reason` (the
same names as `agentd.v1.ErrorReason` without the prefix); when the reason is missing or
unknown, by the gRPC status code (`agentd_client.errors` holds the classes)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

from agentd_client.errors import (
    DETAILS_KEY,
    DOMAIN,
    AbortedError,
    AgentdError,
    AgentExistsError,
    AgentNotFoundError,
    AlreadyExistsError,
    ApprovalNotPendingError,
    ArtifactNotFoundError,
    ArtifactTooLargeError,
    BudgetExhaustedError,
    BudgetExistsError,
    BudgetNotFoundError,
    ContextTooLongError,
    ConversationBusyError,
    ConversationNotFoundError,
    DatasetNotFoundError,
    DeadlineExceededError,
    DestinationNotAllowedError,
    EmbeddingModelChangedError,
    EmbeddingsUnavailableError,
    EtagMismatchError,
    EvalRunNotFoundError,
    EventsExpiredError,
    FailedPreconditionError,
    FieldViolation,
    GrantNotFoundError,
    GuardrailBlockedError,
    IdempotencyConflictError,
    InputPartUnavailableError,
    InternalError,
    InvalidArgumentError,
    KeyRequiredError,
    KnowledgeBaseExistsError,
    LLMNotConfiguredError,
    LLMUnavailableError,
    MemoryNotFoundError,
    MemoryUnavailableError,
    ModelOutputInvalidError,
    NotFoundError,
    PathOutsideWorkspaceError,
    PermissionDeniedError,
    PlanInvalidError,
    PromotionRefusedError,
    RateLimitedError,
    RequestTooLargeError,
    ResourceExhaustedError,
    ScheduleNotActiveError,
    ScheduleNotFoundError,
    ServerRestartedError,
    ShuttingDownError,
    StoreUnavailableError,
    TaskAlreadyTerminalError,
    TaskLimitReachedError,
    TaskNotFoundError,
    TaskNotResumableError,
    ToolArgumentsInvalidError,
    ToolNotFoundError,
    ToolResumableError,
    ToolUnavailableError,
    TraceNotFoundError,
    TriggerNotFoundError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
    WaitDeadlineError,
    WebhookNotFoundError,
)

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
    "TRACE_NOT_FOUND": TraceNotFoundError,
    "DATASET_NOT_FOUND": DatasetNotFoundError,
    "EVAL_RUN_NOT_FOUND": EvalRunNotFoundError,
    "PROMOTION_REFUSED": PromotionRefusedError,
    "SCHEDULE_NOT_FOUND": ScheduleNotFoundError,
    "TRIGGER_NOT_FOUND": TriggerNotFoundError,
    "ETAG_MISMATCH": EtagMismatchError,
    "INPUT_PART_UNAVAILABLE": InputPartUnavailableError,
    "ARTIFACT_TOO_LARGE": ArtifactTooLargeError,
    "SCHEDULE_NOT_ACTIVE": ScheduleNotActiveError,
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
