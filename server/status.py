"""The one table that maps agentd errors to gRPC status codes.

Lookup walks the exception's MRO, so a subclass inherits its parent's code
unless the table names it. The `google.rpc.Status` sent with every error
carries `ErrorInfo(reason, domain="agentd")`, `BadRequest` field violations
for invalid input, and `RetryInfo` when a retry delay is known.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, NoReturn

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2

from core import errors

DOMAIN = "agentd"

STATUS_TABLE: dict[type[errors.AgentdError], grpc.StatusCode] = {
    errors.AgentdError: grpc.StatusCode.INTERNAL,
    errors.InvalidArgumentError: grpc.StatusCode.INVALID_ARGUMENT,
    errors.UnauthenticatedError: grpc.StatusCode.UNAUTHENTICATED,
    errors.ToolNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.ToolUnavailableError: grpc.StatusCode.UNAVAILABLE,
    errors.TaskNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.DestinationNotAllowedError: grpc.StatusCode.PERMISSION_DENIED,
    errors.PermissionDeniedError: grpc.StatusCode.PERMISSION_DENIED,
    errors.GuardrailBlockedError: grpc.StatusCode.PERMISSION_DENIED,
    errors.TaskAlreadyTerminalError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.TaskNotResumableError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.UnimplementedError: grpc.StatusCode.UNIMPLEMENTED,
    errors.ShuttingDownError: grpc.StatusCode.UNAVAILABLE,
    errors.StoreUnavailableError: grpc.StatusCode.UNAVAILABLE,
    errors.DeadlineExceededError: grpc.StatusCode.DEADLINE_EXCEEDED,
    errors.ResourceExhaustedError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    errors.IdempotencyConflictError: grpc.StatusCode.ALREADY_EXISTS,
    errors.EventsExpiredError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.LLMNotConfiguredError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.LLMUnavailableError: grpc.StatusCode.UNAVAILABLE,
    errors.ContextTooLongError: grpc.StatusCode.INVALID_ARGUMENT,
    errors.PlanInvalidError: grpc.StatusCode.ABORTED,
    errors.InternalError: grpc.StatusCode.INTERNAL,
    errors.ApprovalNotPendingError: grpc.StatusCode.NOT_FOUND,
    errors.RoleRequiredError: grpc.StatusCode.PERMISSION_DENIED,
    errors.GrantNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.GrantAboveLimitError: grpc.StatusCode.PERMISSION_DENIED,
    errors.AgentNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.AgentExistsError: grpc.StatusCode.ALREADY_EXISTS,
    errors.ConversationNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.ConversationBusyError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.ArtifactNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.EmbeddingsUnavailableError: grpc.StatusCode.UNAVAILABLE,
    errors.EmbeddingModelChangedError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.MemoryUnavailableError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.MemoryNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.KnowledgeBaseExistsError: grpc.StatusCode.ALREADY_EXISTS,
    errors.BudgetNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.BudgetExistsError: grpc.StatusCode.ALREADY_EXISTS,
    errors.KeyRequiredError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.SecretUnreadableError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.WebhookNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.TraceNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.DatasetNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.EvalRunNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.PromotionRefusedError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.ScheduleNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.ScheduleNotActiveError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.TriggerNotFoundError: grpc.StatusCode.NOT_FOUND,
    errors.PrincipalStandingError: grpc.StatusCode.PERMISSION_DENIED,
    errors.EtagMismatchError: grpc.StatusCode.ABORTED,
    errors.InputPartUnavailableError: grpc.StatusCode.FAILED_PRECONDITION,
    errors.ArtifactTooLargeError: grpc.StatusCode.FAILED_PRECONDITION,
}


def status_code_for(error: errors.AgentdError) -> grpc.StatusCode:
    for cls in type(error).__mro__:
        code = STATUS_TABLE.get(cls)
        if code is not None:
            return code
    return grpc.StatusCode.INTERNAL  # unreachable: AgentdError is in the table


def _pack(message: object) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)  # type: ignore[arg-type]
    return packed


def rich_status(error: errors.AgentdError) -> tuple[grpc.StatusCode, status_pb2.Status]:
    """The gRPC code and the `google.rpc.Status` to send for `error`."""
    code = status_code_for(error)
    status = status_pb2.Status(code=code_pb2.Code.Value(code.name), message=error.message)
    status.details.append(
        _pack(
            error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata)
        )
    )
    if error.field_violations:
        status.details.append(
            _pack(
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field=v.field, description=v.description
                        )
                        for v in error.field_violations
                    ]
                )
            )
        )
    if error.quota_violations:
        status.details.append(
            _pack(
                error_details_pb2.QuotaFailure(
                    violations=[
                        error_details_pb2.QuotaFailure.Violation(
                            subject=v.field, description=v.description
                        )
                        for v in error.quota_violations
                    ]
                )
            )
        )
    if error.retry_after_seconds is not None:
        delay = duration_pb2.Duration()
        delay.FromTimedelta(timedelta(seconds=error.retry_after_seconds))
        status.details.append(_pack(error_details_pb2.RetryInfo(retry_delay=delay)))
    return code, status


def trailing_metadata(status: status_pb2.Status) -> tuple[tuple[str, bytes], ...]:
    return (("grpc-status-details-bin", status.SerializeToString()),)


async def abort(context: grpc.aio.ServicerContext[Any, Any], error: errors.AgentdError) -> NoReturn:
    """End the call with `error`'s rich status (grpc sends it at once)."""
    code, status = rich_status(error)
    await context.abort(code, status.message, trailing_metadata=trailing_metadata(status))
    raise AssertionError("abort returned")  # pragma: no cover
