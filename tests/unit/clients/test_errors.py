from __future__ import annotations

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2, status_pb2

from agentd_client import errors
from agentd_client.status_details import from_rpc_error


def _error(
    code: grpc.StatusCode, details: list[object] | None = None, message: str = "boom"
) -> grpc.aio.AioRpcError:
    trailing: list[tuple[str, str | bytes]] = []
    if details is not None:
        status = status_pb2.Status(code=code.value[0], message=message)
        for detail in details:
            packed = any_pb2.Any()
            packed.Pack(detail)  # type: ignore[arg-type]
            status.details.append(packed)
        trailing.append((errors.DETAILS_KEY, status.SerializeToString()))
    return grpc.aio.AioRpcError(
        code, grpc.aio.Metadata(), grpc.aio.Metadata(*trailing), message, ""
    )


def test_reason_picks_the_class_and_details_are_kept() -> None:
    delay = duration_pb2.Duration(seconds=2, nanos=500_000_000)
    error = from_rpc_error(
        _error(
            grpc.StatusCode.INVALID_ARGUMENT,
            [
                error_details_pb2.ErrorInfo(
                    reason="TOOL_ARGUMENTS_INVALID", domain="agentd", metadata={"tool": "x"}
                ),
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field="arguments.a", description="bad"
                        )
                    ]
                ),
                error_details_pb2.RetryInfo(retry_delay=delay),
            ],
        )
    )
    assert type(error) is errors.ToolArgumentsInvalidError
    assert isinstance(error, errors.InvalidArgumentError)
    assert error.metadata == {"tool": "x"}
    assert error.field_violations == (errors.FieldViolation("arguments.a", "bad"),)
    assert error.retry_after_seconds == 2.5
    assert "TOOL_ARGUMENTS_INVALID" in str(error)


def test_without_details_the_status_code_decides() -> None:
    assert type(from_rpc_error(_error(grpc.StatusCode.NOT_FOUND))) is errors.NotFoundError
    assert type(from_rpc_error(_error(grpc.StatusCode.UNAVAILABLE))) is errors.UnavailableError
    unknown = from_rpc_error(_error(grpc.StatusCode.DATA_LOSS))
    assert type(unknown) is errors.AgentdError
    assert unknown.code is grpc.StatusCode.DATA_LOSS


def test_foreign_domains_and_unknown_reasons_fall_back_to_the_code() -> None:
    foreign = from_rpc_error(
        _error(
            grpc.StatusCode.PERMISSION_DENIED,
            [error_details_pb2.ErrorInfo(reason="TOOL_NOT_FOUND", domain="other")],
        )
    )
    assert type(foreign) is errors.PermissionDeniedError
    future = from_rpc_error(
        _error(
            grpc.StatusCode.NOT_FOUND,
            [error_details_pb2.ErrorInfo(reason="SOMETHING_NEW", domain="agentd")],
        )
    )
    assert type(future) is errors.NotFoundError
    assert future.reason == "SOMETHING_NEW"


def test_corrupt_details_do_not_hide_the_error() -> None:
    raw = grpc.aio.AioRpcError(
        grpc.StatusCode.INTERNAL,
        grpc.aio.Metadata(),
        grpc.aio.Metadata((errors.DETAILS_KEY, b"\xff\xff garbage")),
        "fault",
        "",
    )
    error = from_rpc_error(raw)
    assert type(error) is errors.InternalError
    assert error.message == "fault"


def _with_reason(code: grpc.StatusCode, reason: str) -> errors.AgentdError:
    info = error_details_pb2.ErrorInfo(reason=reason, domain="agentd")
    return from_rpc_error(_error(code, [info], message="what happened"))


def test_the_message_names_the_code_once_and_the_reason_when_it_says_more() -> None:
    refused = _with_reason(grpc.StatusCode.UNAUTHENTICATED, "UNAUTHENTICATED")
    assert str(refused) == "UNAUTHENTICATED: what happened"
    missing = _with_reason(grpc.StatusCode.NOT_FOUND, "TASK_NOT_FOUND")
    assert str(missing) == "NOT_FOUND TASK_NOT_FOUND: what happened"
    assert str(from_rpc_error(_error(grpc.StatusCode.INTERNAL))) == "INTERNAL: boom"
