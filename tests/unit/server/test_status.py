from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2

from agentd.v1 import errors_pb2
from agentd_client.status_details import BY_REASON
from core import errors
from core.errors import FieldViolation
from server.status import STATUS_TABLE, rich_status, status_code_for

PROTO_REASONS = {
    name.removeprefix("ERROR_REASON_")
    for name in errors_pb2.ErrorReason.DESCRIPTOR.values_by_name
    if name != "ERROR_REASON_UNSPECIFIED"
}


def _all_error_classes() -> list[type[errors.AgentdError]]:
    found: list[type[errors.AgentdError]] = []
    pending: list[type[errors.AgentdError]] = [errors.AgentdError]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return found


@pytest.mark.parametrize("cls", _all_error_classes(), ids=lambda c: c.__name__)
def test_every_error_reason_is_in_the_contract(cls: type[errors.AgentdError]) -> None:
    assert cls.reason in PROTO_REASONS


def test_client_knows_every_reason_of_the_contract() -> None:
    assert set(BY_REASON) == PROTO_REASONS


def test_lookup_walks_the_mro() -> None:
    class Narrower(errors.ToolArgumentsInvalidError):
        pass

    error = Narrower("calculator", [FieldViolation("arguments.x", "bad")])
    assert Narrower not in STATUS_TABLE
    assert status_code_for(error) is grpc.StatusCode.INVALID_ARGUMENT

    class Unlisted(errors.AgentdError):
        reason = "INTERNAL"

    assert status_code_for(Unlisted("x")) is grpc.StatusCode.INTERNAL


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (errors.ToolNotFoundError("x"), grpc.StatusCode.NOT_FOUND),
        (errors.TaskNotFoundError("t"), grpc.StatusCode.NOT_FOUND),
        (errors.PathOutsideWorkspaceError("f", "..", "why"), grpc.StatusCode.INVALID_ARGUMENT),
        (errors.RequestTooLargeError("arguments", 10, 5), grpc.StatusCode.INVALID_ARGUMENT),
        (
            errors.DestinationNotAllowedError("h", "10.0.0.1", "private"),
            grpc.StatusCode.PERMISSION_DENIED,
        ),
        (errors.PermissionDeniedError("t", "ADMIN", "r"), grpc.StatusCode.PERMISSION_DENIED),
        (errors.TaskAlreadyTerminalError("t", "completed"), grpc.StatusCode.FAILED_PRECONDITION),
        (errors.UnimplementedError("Execute", "later"), grpc.StatusCode.UNIMPLEMENTED),
        (errors.ShuttingDownError(), grpc.StatusCode.UNAVAILABLE),
        (errors.DeadlineExceededError("late"), grpc.StatusCode.DEADLINE_EXCEEDED),
        (errors.InternalError("abc"), grpc.StatusCode.INTERNAL),
        (errors.ResourceExhaustedError("full", 1.0), grpc.StatusCode.RESOURCE_EXHAUSTED),
        (errors.LLMNotConfiguredError(("X",)), grpc.StatusCode.FAILED_PRECONDITION),
        (errors.LLMUnavailableError("down"), grpc.StatusCode.UNAVAILABLE),
        (errors.PlanInvalidError(["bad"]), grpc.StatusCode.ABORTED),
    ],
)
def test_codes(error: errors.AgentdError, code: grpc.StatusCode) -> None:
    assert status_code_for(error) is code


def test_rich_status_carries_error_info_and_field_violations() -> None:
    error = errors.ToolArgumentsInvalidError(
        "calculator",
        [
            FieldViolation("arguments.expression", "is required"),
            FieldViolation("arguments.x", "no"),
        ],
    )
    code, status = rich_status(error)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    info = error_details_pb2.ErrorInfo()
    bad = error_details_pb2.BadRequest()
    assert status.details[0].Unpack(info)
    assert status.details[1].Unpack(bad)
    assert (info.reason, info.domain, dict(info.metadata)) == (
        "TOOL_ARGUMENTS_INVALID",
        "agentd",
        {"tool": "calculator"},
    )
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("arguments.expression", "is required"),
        ("arguments.x", "no"),
    ]


def test_invalid_argument_needs_a_violation() -> None:
    with pytest.raises(ValueError, match="at least one"):
        errors.InvalidArgumentError([])


def test_retry_info_for_resource_exhaustion() -> None:
    _, status = rich_status(errors.ResourceExhaustedError("full", 2.5))
    retry = error_details_pb2.RetryInfo()
    assert status.details[-1].Unpack(retry)
    assert retry.retry_delay.ToTimedelta().total_seconds() == 2.5
